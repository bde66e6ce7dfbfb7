# sigmoid(tanh(conv * s) * m) with s and m of shape [CO, 1, 1, 1].
task conv3d_scaling_tanh_multiply_sigmoid
level 2
category Fusion
about "Conv3d 3x3x3, per-channel scale, tanh, per-channel multiply, sigmoid (KernelBench L2 #48_Conv3d_Scaling_Tanh_Multiply_Sigmoid)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CO, CI, 3, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
param  s: f32[CO, 1, 1, 1] ~ uniform(0.5, 1.5)
param  m: f32[CO, 1, 1, 1] ~ uniform(0.5, 1.5)
output y: f32[N, CO, D-2, H-2, W-2]
y = sigmoid(tanh(conv3d(x, w, b) * s) * m)
check N=1 CI=1 CO=1 D=3 H=3 W=3; N=2 CI=3 CO=5 D=5 H=7 W=6; N=1 CI=2 CO=3 D=9 H=5 W=11; N=2 CI=4 CO=2 D=4 H=13 W=3
bench N=16 CI=16 CO=32 D=32 H=64 W=64 weight=0.5; N=8 CI=32 CO=64 D=16 H=128 W=128 weight=0.5
bench cpu N=1 CI=4 CO=8 D=8 H=16 W=16 weight=1
