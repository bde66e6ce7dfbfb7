# (avg_pool3d(conv_transpose * 0.5, 2) + bias[CO, 1, 1, 1]) * 1.5.
task convtranspose3d_scaling_avgpool_biasadd_scaling
level 2
category Fusion
about "ConvTranspose3d 3x3x3 stride 2, scale by 0.5, AvgPool3d(2), add a per-channel bias, scale by 1.5 (KernelBench L2 #50_ConvTranspose3d_Scaling_AvgPool_BiasAdd_Scaling)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CI, CO, 3, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
param  bias: f32[CO, 1, 1, 1] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, D, H, W]
y = (avg_pool3d(conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1) * 0.5, 2) + bias) * 1.5
check N=1 CI=1 CO=1 D=1 H=1 W=1; N=2 CI=3 CO=5 D=3 H=4 W=5; N=1 CI=2 CO=3 D=5 H=3 W=7; N=2 CI=4 CO=2 D=2 H=9 W=3
bench N=32 CI=32 CO=32 D=16 H=32 W=32 weight=0.5; N=8 CI=64 CO=32 D=16 H=64 W=64 weight=0.5
bench cpu N=1 CI=4 CO=4 D=4 H=8 W=8 weight=1
