# KernelBench's own sizes.
task conv3d_asym_kernel
level 1
category Convolution
about "3D convolution with a 3x5x7 kernel (KernelBench L1 #60_conv_standard_3D__square_input__asymmetric_kernel)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CO, CI, 3, 5, 7] ~ kaiming
output y: f32[N, CO, D-2, H-4, W-6]
y = conv3d(x, w)
check N=1 CI=1 CO=1 D=3 H=5 W=7; N=2 CI=3 CO=4 D=6 H=7 W=9; N=1 CI=2 CO=3 D=11 H=5 W=13
bench N=16 CI=3 CO=64 D=64 H=64 W=64 weight=1
bench cpu N=2 CI=3 CO=8 D=12 H=14 W=16 weight=1
