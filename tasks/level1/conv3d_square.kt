# A volumetric first layer.
task conv3d_square
level 1
category Convolution
about "3D convolution, 3x3x3 kernel, 3 input channels (KernelBench L1 #54_conv_standard_3D__square_input__square_kernel; bench sizes scaled)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CO, CI, 3, 3, 3] ~ kaiming
output y: f32[N, CO, D-2, H-2, W-2]
y = conv3d(x, w)
check N=1 CI=1 CO=1 D=3 H=3 W=3; N=2 CI=3 CO=5 D=5 H=7 W=9; N=1 CI=3 CO=4 D=13 H=4 W=11
bench N=16 CI=3 CO=64 D=80 H=80 W=80 weight=1
bench cpu N=2 CI=3 CO=16 D=16 H=16 W=16 weight=1
