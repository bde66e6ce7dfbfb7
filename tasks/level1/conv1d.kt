# A sequence convolution.
task conv1d
level 1
category Convolution
about "1D convolution, kernel 3, stride 1 (KernelBench L1 #67_conv_standard_1D; bench sizes scaled)"
input  x: f32[N, CI, L] ~ normal
param  w: f32[CO, CI, 3] ~ kaiming
output y: f32[N, CO, L-2]
y = conv1d(x, w)
check N=1 CI=1 CO=1 L=3; N=2 CI=3 CO=5 L=17; N=3 CI=7 CO=4 L=130
bench N=64 CI=64 CO=128 L=16384 weight=1
bench cpu N=4 CI=16 CO=32 L=1024 weight=1
