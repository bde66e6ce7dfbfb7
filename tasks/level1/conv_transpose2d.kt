# Each input pixel spreads a 3x3 patch of each output channel.
task conv_transpose2d
level 1
category Convolution
about "Transposed 2D convolution, 3x3 kernel, stride 1, with bias (KernelBench L1 #57_conv_transposed_2D__square_input__square_kernel; bench sizes scaled)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, CO, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, H+2, W+2]
y = conv_transpose2d(x, w, b)
check N=1 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=7 W=11; N=3 CI=6 CO=4 H=17 W=13
bench N=16 CI=64 CO=64 H=256 W=256 weight=1
bench cpu N=2 CI=16 CO=16 H=32 W=32 weight=1
