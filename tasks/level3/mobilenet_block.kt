# MobileNetV1's depthwise-separable block: a 3x3 depthwise convolution
# (groups = C, padding 1), BatchNorm, ReLU, a 1x1 pointwise convolution,
# BatchNorm, ReLU.  BatchNorm with batch statistics (eps 1e-5) as KernelBench
# calls the model; convolutions without bias.
task mobilenet_block
level 3
category Architecture
about "Depthwise-separable block: dw3x3-BN-ReLU-pw1x1-BN-ReLU (the conv_dw block of KernelBench L3 #19_MobileNetV1)"
input  x: f32[N, C, H, W] ~ normal
param  wd: f32[C, 1, 3, 3] ~ kaiming
param  g1: f32[C] ~ uniform(0.5, 1.5)
param  be1: f32[C] ~ uniform(-0.1, 0.1)
param  wp: f32[CO, C, 1, 1] ~ kaiming
param  g2: f32[CO] ~ uniform(0.5, 1.5)
param  be2: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, H, W]
h = relu(batch_norm(conv2d(x, wd, padding=1, groups=C), weight=g1, bias=be1, training=True))
y = relu(batch_norm(conv2d(h, wp), weight=g2, bias=be2, training=True))
check N=2 C=1 CO=1 H=1 W=1; N=2 C=3 CO=5 H=7 W=9; N=1 C=4 CO=3 H=17 W=13; N=3 C=2 CO=7 H=33 W=5
bench N=64 C=128 CO=256 H=112 W=112 weight=0.5; N=128 C=512 CO=512 H=28 W=28 weight=0.5
bench cpu N=2 C=16 CO=32 H=32 W=32 weight=1
