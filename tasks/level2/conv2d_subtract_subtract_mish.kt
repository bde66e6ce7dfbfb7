# conv - 0.5 - 0.2, then Mish(x) = x * tanh(softplus(x)).
task conv2d_subtract_subtract_mish
level 2
category Fusion
about "Conv2d 3x3, subtract 0.5, subtract 0.2, Mish (KernelBench L2 #87_Conv2d_Subtract_Subtract_Mish)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, H-2, W-2]
h = conv2d(x, w, b) - 0.5 - 0.2
y = h * tanh(softplus(h))
check N=1 CI=1 CO=1 H=3 W=3; N=2 CI=3 CO=5 H=7 W=9; N=1 CI=4 CO=3 H=17 W=13; N=3 CI=2 CO=7 H=33 W=5
bench N=64 CI=32 CO=64 H=128 W=128 weight=0.5; N=16 CI=64 CO=128 H=256 W=256 weight=0.5
bench cpu N=2 CI=8 CO=16 H=32 W=32 weight=1
