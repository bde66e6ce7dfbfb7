# A per-sample sum of ~CO*H*W/4 sigmoids (values in (0, 1)): rtol keeps it
# exact to 1e-4.
task conv2d_avgpool_sigmoid_sum
level 2
category Fusion
about "Conv2d 3x3, AvgPool2d(2), sigmoid, sum over channels and positions (KernelBench L2 #65_Conv2d_AvgPool_Sigmoid_Sum)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N]
y = sum(reshape(sigmoid(avg_pool2d(conv2d(x, w, b), 2)), [N, -1]), dim=1)
check N=1 CI=1 CO=1 H=4 W=4; N=2 CI=3 CO=5 H=7 W=9; N=1 CI=4 CO=3 H=17 W=13; N=3 CI=2 CO=7 H=33 W=6
bench N=128 CI=32 CO=64 H=128 W=128 weight=0.5; N=16 CI=64 CO=128 H=256 W=256 weight=0.5
bench cpu N=2 CI=8 CO=16 H=32 W=32 weight=1
