# Height: 2 rows of padding against a dilated extent of 5 lose 2 rows; width keeps its size.
task conv2d_dilated_padded
level 1
category Convolution
about "2D convolution, 3x5 kernel, padding (1, 2), dilation (2, 1) (KernelBench L1 #80_conv_standard_2D_square_input_asymmetric_kernel___dilated____padded__; bench sizes scaled)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 5] ~ kaiming
output y: f32[N, CO, H-2, W]
y = conv2d(x, w, padding=[1, 2], dilation=[2, 1])
check N=1 CI=1 CO=1 H=3 W=1; N=2 CI=3 CO=5 H=8 W=9; N=3 CI=5 CO=2 H=17 W=23
bench N=16 CI=32 CO=64 H=256 W=256 weight=1
bench cpu N=2 CI=8 CO=16 H=48 W=48 weight=1
