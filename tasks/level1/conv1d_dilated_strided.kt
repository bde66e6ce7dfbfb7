# Taps 4 apart, windows 3 apart: out = floor((L - 9) / 3) + 1.
task conv1d_dilated_strided
level 1
category Convolution
about "1D convolution, kernel 3, stride 3, dilation 4 (KernelBench L1 #76_conv_standard_1D_dilated_strided__; bench sizes scaled)"
input  x: f32[N, CI, L] ~ normal
param  w: f32[CO, CI, 3] ~ kaiming
output y: f32[N, CO, (L-9)/3+1]
y = conv1d(x, w, stride=3, dilation=4)
check N=1 CI=1 CO=1 L=9; N=2 CI=3 CO=5 L=31; N=3 CI=4 CO=6 L=100
bench N=64 CI=64 CO=128 L=65536 weight=1
bench cpu N=4 CI=16 CO=32 L=3000 weight=1
