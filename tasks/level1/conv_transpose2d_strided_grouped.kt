# Out H = (H-1)*2 - 2 + 2*2 + 1 = 2H + 1; out W = (W-1)*3 - 4 + 4 + 1 = 3W - 2.
task conv_transpose2d_strided_grouped
level 1
category Convolution
about "Transposed 2D convolution, 3x5 kernel, stride (2, 3), padding (1, 2), dilation (2, 1), 4 groups (KernelBench L1 #75_conv_transposed_2D_asymmetric_input_asymmetric_kernel_strided__grouped____padded____dilated__; bench sizes scaled)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, CO/4, 3, 5] ~ kaiming
output y: f32[N, CO, 2*H+1, 3*W-2]
y = conv_transpose2d(x, w, stride=[2, 3], padding=[1, 2], groups=4, dilation=[2, 1])
check N=1 CI=4 CO=4 H=1 W=1; N=2 CI=8 CO=12 H=5 W=7; N=3 CI=12 CO=8 H=11 W=3
bench N=32 CI=32 CO=64 H=128 W=256 weight=1
bench cpu N=2 CI=16 CO=16 H=32 W=32 weight=1
