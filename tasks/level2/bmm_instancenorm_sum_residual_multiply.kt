# KernelBench applies InstanceNorm2d to the linear output viewed as [N, 1, 1,
# OUT]: each row is normalized over its OUT features (biased variance, eps
# 1e-5, no affine).  Then (h + y) * y with a second input y.  Check shapes
# keep OUT >= 2: one feature normalizes to 0.
task bmm_instancenorm_sum_residual_multiply
level 2
category Fusion
about "Linear, InstanceNorm over the features of each row (no affine, eps 1e-5), add y, multiply by y (KernelBench L2 #28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply)"
input  x: f32[N, IN] ~ normal
input  y: f32[N, OUT] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output out: f32[N, OUT]
h = instance_norm(reshape(linear(x, w, b), [N, 1, OUT]), eps=1e-5)
out = (reshape(h, [N, OUT]) + y) * y
check N=1 IN=1 OUT=2; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
