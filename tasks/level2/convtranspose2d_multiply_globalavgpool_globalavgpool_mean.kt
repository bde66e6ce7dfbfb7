# The second global average pool runs over a 1x1 map and passes its value
# through, as in KernelBench.  Result [N, CO, 1, 1].
task convtranspose2d_multiply_globalavgpool_globalavgpool_mean
level 2
category Fusion
about "ConvTranspose2d 3x3 stride 2, scale by 0.5, global average pool twice (keepdim) (KernelBench L2 #44_ConvTranspose2d_Multiply_GlobalAvgPool_GlobalAvgPool_Mean)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, CO, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, 1, 1]
p = adaptive_avg_pool2d(conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1) * 0.5, 1)
y = adaptive_avg_pool2d(p, 1)
check N=1 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=4 W=5; N=1 CI=4 CO=3 H=9 W=7; N=3 CI=2 CO=7 H=17 W=3
bench N=64 CI=64 CO=32 H=128 W=128 weight=0.5; N=32 CI=128 CO=64 H=128 W=128 weight=0.5
bench cpu N=2 CI=8 CO=4 H=16 W=16 weight=1
