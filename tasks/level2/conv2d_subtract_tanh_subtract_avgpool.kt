# conv - 0.5, tanh, - 0.2, 2x2 average pooling (stride 2, floor).
task conv2d_subtract_tanh_subtract_avgpool
level 2
category Fusion
about "Conv2d 3x3, subtract 0.5, tanh, subtract 0.2, AvgPool2d(2) (KernelBench L2 #46_Conv2d_Subtract_Tanh_Subtract_AvgPool)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, (H-2)/2, (W-2)/2]
y = avg_pool2d(tanh(conv2d(x, w, b) - 0.5) - 0.2, 2)
check N=1 CI=1 CO=1 H=4 W=4; N=2 CI=3 CO=5 H=7 W=9; N=1 CI=4 CO=3 H=17 W=13; N=3 CI=2 CO=7 H=33 W=6
bench N=64 CI=32 CO=64 H=128 W=128 weight=0.5; N=16 CI=64 CO=128 H=256 W=256 weight=0.5
bench cpu N=2 CI=8 CO=16 H=32 W=32 weight=1
