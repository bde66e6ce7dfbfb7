# min over channels (keepdim) -> [N, 1, 2H, 2W]; sum over the height
# (keepdim) -> [N, 1, 1, 2W]; GELU; + bias[CO, 1, 1] broadcasts to
# [N, CO, 1, 2W] as in KernelBench.
task convtranspose2d_min_sum_gelu_add
level 2
category Fusion
about "ConvTranspose2d 3x3 stride 2, min over channels, sum over height, GELU, add a per-channel bias (KernelBench L2 #36_ConvTranspose2d_Min_Sum_GELU_Add)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, CO, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
param  bias: f32[CO, 1, 1] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, 1, 2*W]
m = min(conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1), dim=1, keepdim=True)
y = gelu(sum(m, dim=2, keepdim=True)) + bias
check N=1 CI=1 CO=2 H=1 W=1; N=2 CI=3 CO=5 H=4 W=5; N=1 CI=4 CO=3 H=9 W=7; N=3 CI=2 CO=7 H=17 W=3
bench N=128 CI=64 CO=32 H=128 W=128 weight=0.5; N=32 CI=128 CO=64 H=128 W=128 weight=0.5
bench cpu N=2 CI=8 CO=4 H=16 W=16 weight=1
