# One 3x3 filter per channel: memory-bound.
task conv2d_depthwise
level 1
category Convolution
about "Depthwise 2D convolution (groups = channels), 3x3 kernel (KernelBench L1 #82_conv_depthwise_2D_square_input_square_kernel; bench sizes scaled)"
input  x: f32[N, C, H, W] ~ normal
param  w: f32[C, 1, 3, 3] ~ kaiming
output y: f32[N, C, H-2, W-2]
y = conv2d(x, w, groups=C)
check N=1 C=1 H=3 W=3; N=2 C=3 H=7 W=11; N=3 C=17 H=19 W=5
bench N=64 C=128 H=256 W=256 weight=1
bench cpu N=4 C=32 H=64 W=64 weight=1
