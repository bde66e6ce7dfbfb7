# A vertical 3-tap filter per channel.
task conv2d_depthwise_asym_kernel
level 1
category Convolution
about "Depthwise 2D convolution with a 3x1 kernel (KernelBench L1 #83_conv_depthwise_2D_square_input_asymmetric_kernel; bench sizes scaled)"
input  x: f32[N, C, H, W] ~ normal
param  w: f32[C, 1, 3, 1] ~ kaiming
output y: f32[N, C, H-2, W]
y = conv2d(x, w, groups=C)
check N=1 C=1 H=3 W=1; N=2 C=3 H=7 W=11; N=3 C=13 H=19 W=5
bench N=64 C=128 H=256 W=256 weight=1
bench cpu N=4 C=32 H=64 W=64 weight=1
