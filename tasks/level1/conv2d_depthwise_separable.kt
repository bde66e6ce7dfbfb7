# Two convs as nn.Sequential(Conv2d(C, C, 3, padding=1, groups=C), Conv2d(C, CO, 1)), no biases.
task conv2d_depthwise_separable
level 1
category Convolution
about "Depthwise-separable 2D convolution: depthwise 3x3 (padding 1, groups = channels) then pointwise 1x1 (KernelBench L1 #86_conv_depthwise_separable_2D; bench sizes scaled)"
input  x: f32[N, C, H, W] ~ normal
param  wd: f32[C, 1, 3, 3] ~ kaiming
param  wp: f32[CO, C, 1, 1] ~ kaiming
output y: f32[N, CO, H, W]
h = conv2d(x, wd, padding=1, groups=C)
y = conv2d(h, wp)
check N=1 C=1 CO=1 H=1 W=1; N=2 C=3 CO=5 H=7 W=11; N=3 C=17 CO=4 H=9 W=5
bench N=64 C=128 CO=256 H=128 W=128 weight=1
bench cpu N=2 C=32 CO=64 H=32 W=32 weight=1
