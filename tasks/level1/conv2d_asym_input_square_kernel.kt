# A tall input (H = 2W) with a square kernel.
task conv2d_asym_input_square_kernel
level 1
category Convolution
about "2D convolution of a non-square input, 3x3 kernel (KernelBench L1 #55_conv_standard_2D__asymmetric_input__square_kernel; bench sizes scaled)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 3] ~ kaiming
output y: f32[N, CO, H-2, W-2]
y = conv2d(x, w)
check N=1 CI=2 CO=3 H=3 W=5; N=2 CI=7 CO=4 H=19 W=6; N=3 CI=3 CO=9 H=5 W=37
bench N=32 CI=32 CO=64 H=512 W=256 weight=1
bench cpu N=2 CI=8 CO=16 H=64 W=32 weight=1
