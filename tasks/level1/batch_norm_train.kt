# nn.BatchNorm2d in its default (training) mode as one op: per-channel
# mean and biased variance over N, H, W; eps 1e-5; affine weight and bias.
# Check shapes keep N*H*W >= 2.
task batch_norm_train
level 1
category Normalization
about "BatchNorm2d with batch statistics, eps 1e-5, weight and bias: batch_norm(x, weight=w, bias=b, training=True) (KernelBench L1 #33_BatchNorm)"
input  x: f32[N, C, H, W] ~ normal
param  w: f32[C] ~ uniform(0.5, 1.5)
param  b: f32[C] ~ uniform(-0.1, 0.1)
output y: f32[N, C, H, W]
y = batch_norm(x, weight=w, bias=b, training=True)
check N=2 C=1 H=1 W=1; N=1 C=3 H=5 W=7; N=3 C=17 H=33 W=31; N=5 C=2 H=1 W=129
bench N=64 C=64 H=512 W=512 weight=0.6; N=64 C=256 H=128 W=256 weight=0.4
bench cpu N=8 C=16 H=32 W=32 weight=1
