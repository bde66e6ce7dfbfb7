# BatchNorm2d in inference mode: the running statistics (params here)
# normalize each channel: (x - mean) / sqrt(var + eps) * w + b.
task batch_norm_eval
level 1
category Normalization
about "BatchNorm2d in inference mode with running mean and variance, eps 1e-5, weight and bias"
input  x: f32[N, C, H, W] ~ normal
param  rm: f32[C] ~ normal(0, 0.2)
param  rv: f32[C] ~ uniform(0.5, 2)
param  w: f32[C] ~ uniform(0.5, 1.5)
param  b: f32[C] ~ uniform(-0.1, 0.1)
output y: f32[N, C, H, W]
y = batch_norm(x, rm, rv, w, b, training=False, eps=1e-5)
check N=1 C=1 H=1 W=2; N=1 C=3 H=5 W=7; N=3 C=17 H=33 W=31; N=5 C=2 H=1 W=129
bench N=64 C=128 H=256 W=256 weight=0.6; N=32 C=64 H=512 W=512 weight=0.4
bench cpu N=8 C=16 H=32 W=32 weight=1
