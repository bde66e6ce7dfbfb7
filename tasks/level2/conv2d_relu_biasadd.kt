# Conv2d (3x3, stride 1, no padding, with bias), ReLU, plus a bias of shape [CO, 1, 1].
task conv2d_relu_biasadd
level 2
category Fusion
about "Conv2d 3x3, ReLU, add a per-channel bias (KernelBench L2 #1_Conv2D_ReLU_BiasAdd)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
param  bias: f32[CO, 1, 1] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, H-2, W-2]
y = relu(conv2d(x, w, b)) + bias
check N=1 CI=1 CO=1 H=3 W=3; N=2 CI=3 CO=5 H=7 W=9; N=1 CI=4 CO=3 H=17 W=13; N=3 CI=2 CO=7 H=33 W=5
bench N=128 CI=32 CO=64 H=128 W=128 weight=0.5; N=16 CI=64 CO=128 H=256 W=256 weight=0.5
bench cpu N=2 CI=8 CO=16 H=32 W=32 weight=1
