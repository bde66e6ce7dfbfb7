# Out = (L - 1) * 2 - 2 + 2 * 2 + 1 = 2L + 1.
task conv_transpose1d_strided_dilated
level 1
category Convolution
about "Transposed 1D convolution, kernel 3, stride 2, padding 1, dilation 2 (KernelBench L1 #79_conv_transposed_1D_asymmetric_input_square_kernel___padded____strided____dilated__; bench sizes scaled)"
input  x: f32[N, CI, L] ~ normal
param  w: f32[CI, CO, 3] ~ kaiming
output y: f32[N, CO, 2*L+1]
y = conv_transpose1d(x, w, stride=2, padding=1, dilation=2)
check N=1 CI=1 CO=1 L=1; N=2 CI=3 CO=5 L=17; N=3 CI=6 CO=4 L=101
bench N=32 CI=64 CO=64 L=65536 weight=1
bench cpu N=4 CI=16 CO=16 L=2048 weight=1
