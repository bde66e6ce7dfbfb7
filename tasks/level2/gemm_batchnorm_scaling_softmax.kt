# Softmax over up to 8192 features: values ~1e-4, so atol is 1e-9 and the
# check is relative.  Check shapes keep N >= 2 (batch statistics).
# The linear layer has no bias: the batch mean would cancel it.
task gemm_batchnorm_scaling_softmax
level 2
category Fusion
about "Linear, BatchNorm1d in training mode (batch statistics, eps 1e-5), scale, softmax over features (KernelBench L2 #84_Gemm_BatchNorm_Scaling_Softmax)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  g: f32[OUT] ~ uniform(0.5, 1.5)
param  beta: f32[OUT] ~ uniform(-0.1, 0.1)
param  s: f32[1] ~ uniform(0.5, 1.5)
output y: f32[N, OUT]
h = linear(x, w)
m = mean(h, dim=0, keepdim=True)
v = var(h, dim=0, correction=0, keepdim=True)
z = ((h - m) / sqrt(v + 1e-5) * g + beta) * s
y = softmax(z, dim=1)
check N=2 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
tol atol=1e-9 rtol=1e-4
