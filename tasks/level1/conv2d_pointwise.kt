# A GEMM over channels at every pixel.
task conv2d_pointwise
level 1
category Convolution
about "Pointwise (1x1) 2D convolution (KernelBench L1 #87_conv_pointwise_2D; bench sizes scaled)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 1, 1] ~ kaiming
output y: f32[N, CO, H, W]
y = conv2d(x, w)
check N=1 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=7 W=11; N=3 CI=33 CO=17 H=5 W=9
bench N=32 CI=256 CO=256 H=128 W=128 weight=1
bench cpu N=4 CI=32 CO=64 H=32 W=32 weight=1
