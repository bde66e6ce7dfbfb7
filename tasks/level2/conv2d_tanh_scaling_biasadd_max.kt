# tanh(conv) * 2.0 + bias[CO, 1, 1], then 2x2 max pooling (stride 2, floor).
task conv2d_tanh_scaling_biasadd_max
level 2
category Fusion
about "Conv2d 3x3, tanh, scale by 2, add a per-channel bias, MaxPool2d(2) (KernelBench L2 #82_Conv2d_Tanh_Scaling_BiasAdd_Max)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
param  bias: f32[CO, 1, 1] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, (H-2)/2, (W-2)/2]
y = max_pool2d(tanh(conv2d(x, w, b)) * 2.0 + bias, 2)
check N=1 CI=1 CO=1 H=4 W=4; N=2 CI=3 CO=5 H=7 W=9; N=1 CI=4 CO=3 H=17 W=13; N=3 CI=2 CO=7 H=33 W=6
bench N=64 CI=32 CO=64 H=128 W=128 weight=0.5; N=16 CI=64 CO=128 H=256 W=256 weight=0.5
bench cpu N=2 CI=8 CO=16 H=32 W=32 weight=1
