# Kernel 3 high and 5 wide.
task conv2d_asym_kernel
level 1
category Convolution
about "2D convolution with an asymmetric 3x5 kernel on a non-square input (KernelBench L1 #56_conv_standard_2D__asymmetric_input__asymmetric_kernel; bench sizes scaled)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 5] ~ kaiming
output y: f32[N, CO, H-2, W-4]
y = conv2d(x, w)
check N=1 CI=1 CO=2 H=3 W=5; N=2 CI=3 CO=5 H=9 W=13; N=3 CI=6 CO=4 H=31 W=7
bench N=16 CI=32 CO=64 H=256 W=384 weight=1
bench cpu N=2 CI=8 CO=16 H=48 W=64 weight=1
