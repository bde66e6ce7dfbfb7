# BatchNorm1d in training mode normalizes each feature over the batch
# (biased variance).  KernelBench L2 #33 scales the linear output by a
# positive per-feature vector before the BatchNorm, which the normalization
# cancels (up to eps); here the scale is applied after it.  The linear layer
# has no bias: the batch mean would cancel it too.  Check shapes keep N >= 2:
# one row normalizes to 0.
task gemm_scale_batchnorm
level 2
category Fusion
about "Linear, BatchNorm1d in training mode (batch statistics over N, eps 1e-5), per-feature scale (after KernelBench L2 #33_Gemm_Scale_BatchNorm)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  s: f32[OUT] ~ uniform(0.5, 1.5)
param  g: f32[OUT] ~ uniform(0.5, 1.5)
param  beta: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, OUT]
h = linear(x, w)
m = mean(h, dim=0, keepdim=True)
v = var(h, dim=0, correction=0, keepdim=True)
y = ((h - m) / sqrt(v + 1e-5) * g + beta) * s
check N=2 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
