# Out = (D - 1) * 2 - 2 + 2 * 2 + 1 = 2D + 1 per dim.
task conv_transpose3d_strided_padded_dilated
level 1
category Convolution
about "Transposed 3D convolution, 3x3x3 kernel, stride 2, padding 1, dilation 2 (KernelBench L1 #77_conv_transposed_3D_square_input_square_kernel___padded____dilated____strided__; bench sizes scaled)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CI, CO, 3, 3, 3] ~ kaiming
output y: f32[N, CO, 2*D+1, 2*H+1, 2*W+1]
y = conv_transpose3d(x, w, stride=2, padding=1, dilation=2)
check N=1 CI=1 CO=1 D=1 H=1 W=1; N=2 CI=3 CO=4 D=3 H=5 W=2; N=1 CI=4 CO=3 D=7 H=3 W=5
bench N=16 CI=32 CO=64 D=32 H=32 W=32 weight=1
bench cpu N=2 CI=8 CO=8 D=8 H=8 W=8 weight=1
