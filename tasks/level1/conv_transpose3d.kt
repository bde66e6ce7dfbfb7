# The adjoint of a 3x3x3 valid convolution.
task conv_transpose3d
level 1
category Convolution
about "Transposed 3D convolution, 3x3x3 kernel (KernelBench L1 #61_conv_transposed_3D__square_input__square_kernel; bench sizes scaled)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CI, CO, 3, 3, 3] ~ kaiming
output y: f32[N, CO, D+2, H+2, W+2]
y = conv_transpose3d(x, w)
check N=1 CI=1 CO=1 D=1 H=1 W=1; N=2 CI=3 CO=4 D=3 H=5 W=7; N=1 CI=5 CO=2 D=9 H=4 W=11
bench N=16 CI=32 CO=32 D=48 H=48 W=48 weight=1
bench cpu N=2 CI=8 CO=8 D=12 H=12 W=12 weight=1
