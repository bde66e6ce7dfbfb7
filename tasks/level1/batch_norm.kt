# BatchNorm2d in training mode: statistics over (N, H, W) per channel, biased
# variance, eps 1e-5, affine weight and bias.  Check shapes keep N*H*W >= 2
# (one element per channel normalizes to exactly 0).
task batch_norm
level 1
category Normalization
about "BatchNorm2d, training mode (batch statistics over N, H, W), eps 1e-5, with weight and bias (KernelBench L1 #33_BatchNorm)"
input  x: f32[N, C, H, W] ~ normal
param  w: f32[C] ~ uniform(0.5, 1.5)
param  b: f32[C] ~ uniform(-0.1, 0.1)
output y: f32[N, C, H, W]
m = mean(mean(mean(x, dim=3, keepdim=True), dim=2, keepdim=True), dim=0, keepdim=True)
d = x - m
v = mean(mean(mean(d * d, dim=3, keepdim=True), dim=2, keepdim=True), dim=0, keepdim=True)
y = d / sqrt(v + 1e-5) * reshape(w, [1, C, 1, 1]) + reshape(b, [1, C, 1, 1])
check N=2 C=1 H=1 W=1; N=1 C=3 H=5 W=7; N=3 C=17 H=33 W=31; N=5 C=2 H=1 W=129
bench N=64 C=64 H=256 W=256 weight=0.6; N=16 C=256 H=128 W=256 weight=0.4
bench cpu N=8 C=16 H=32 W=32 weight=1
