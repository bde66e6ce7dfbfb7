# Mish(x) = x * tanh(softplus(x)) of a 3x3x3 convolution, then tanh.
task conv3d_mish_tanh
level 2
category Fusion
about "Conv3d 3x3x3, Mish, tanh (KernelBench L2 #47_Conv3d_Mish_Tanh)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CO, CI, 3, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, D-2, H-2, W-2]
h = conv3d(x, w, b)
y = tanh(h * tanh(softplus(h)))
check N=1 CI=1 CO=1 D=3 H=3 W=3; N=2 CI=3 CO=5 D=5 H=7 W=6; N=1 CI=2 CO=3 D=9 H=5 W=11; N=2 CI=4 CO=2 D=4 H=13 W=3
bench N=16 CI=16 CO=32 D=32 H=64 W=64 weight=0.5; N=8 CI=32 CO=64 D=16 H=128 W=128 weight=0.5
bench cpu N=1 CI=4 CO=8 D=8 H=16 W=16 weight=1
