# Result [N, 1]: 10 * logsumexp_c(mean over positions + bias[c]).
task convtranspose2d_globalavgpool_biasadd_lse_sum_multiply
level 2
category Fusion
about "ConvTranspose2d 3x3 stride 2, global average pool, add a per-channel bias, logsumexp over channels, scale by 10 (KernelBench L2 #42_ConvTranspose2d_GlobalAvgPool_BiasAdd_LogSumExp_Sum_Multiply)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, CO, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
param  bias: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, 1]
p = mean(reshape(conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1), [N, CO, -1]), dim=2)
y = logsumexp(p + bias, dim=1, keepdim=True) * 10.0
check N=1 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=4 W=5; N=1 CI=4 CO=3 H=9 W=7; N=3 CI=2 CO=7 H=17 W=3
bench N=64 CI=64 CO=32 H=128 W=128 weight=0.5; N=32 CI=128 CO=64 H=128 W=128 weight=0.5
bench cpu N=2 CI=8 CO=4 H=16 W=16 weight=1
