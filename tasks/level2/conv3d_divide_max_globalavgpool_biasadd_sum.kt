# Result [N, 1, 1, 1]: per sample, the sum over channels of (pooled average + bias).
task conv3d_divide_max_globalavgpool_biasadd_sum
level 2
category Fusion
about "Conv3d 3x3x3, divide by 2, MaxPool3d(2), global average pool, add a per-channel bias, sum over channels (KernelBench L2 #8_Conv3d_Divide_Max_GlobalAvgPool_BiasAdd_Sum)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CO, CI, 3, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
param  bias: f32[CO, 1, 1, 1] ~ uniform(-0.1, 0.1)
output y: f32[N, 1, 1, 1]
p = adaptive_avg_pool3d(max_pool3d(conv3d(x, w, b) / 2.0, 2), 1)
y = sum(p + bias, dim=1)
check N=1 CI=1 CO=1 D=4 H=4 W=4; N=2 CI=3 CO=5 D=5 H=7 W=6; N=1 CI=2 CO=3 D=9 H=5 W=11; N=2 CI=4 CO=2 D=4 H=13 W=5
bench N=16 CI=16 CO=32 D=32 H=64 W=64 weight=0.5; N=8 CI=32 CO=64 D=16 H=128 W=128 weight=0.5
bench cpu N=1 CI=4 CO=8 D=8 H=16 W=16 weight=1
