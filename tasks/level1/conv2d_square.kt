# nn.Conv2d(CI, CO, 3, bias=False): weights with kaiming-uniform init keep outputs O(1).
task conv2d_square
level 1
category Convolution
about "2D convolution, 3x3 kernel, stride 1, no padding, no bias (KernelBench L1 #63_conv_standard_2D__square_input__square_kernel; bench sizes scaled for the H200)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 3] ~ kaiming
output y: f32[N, CO, H-2, W-2]
y = conv2d(x, w)
check N=1 CI=1 CO=1 H=3 W=3; N=2 CI=3 CO=5 H=7 W=11; N=3 CI=5 CO=7 H=17 W=13
bench N=64 CI=3 CO=64 H=512 W=512 weight=0.6; N=32 CI=64 CO=128 H=128 W=128 weight=0.4
bench cpu N=4 CI=3 CO=16 H=64 W=64 weight=1
