# BatchNorm3d in training mode cancels a conv bias (the transposed conv has
# none) and the scale, up to eps (kept as in KernelBench).  Result
# [N, CO, 1, 1, 1]: per sample and channel the mean of the normalized volume.
task convtranspose3d_scale_batchnorm_globalavgpool
level 2
category Fusion
about "ConvTranspose3d 3x3x3 stride 2, scale by 2, BatchNorm3d (batch statistics, affine), global average pool (KernelBench L2 #77_ConvTranspose3d_Scale_BatchNorm_GlobalAvgPool)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CI, CO, 3, 3, 3] ~ kaiming
param  g: f32[CO] ~ uniform(0.5, 1.5)
param  beta: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, 1, 1, 1]
h = batch_norm(conv_transpose3d(x, w, stride=2, padding=1, output_padding=1) * 2.0, weight=g, bias=beta, training=True)
y = adaptive_avg_pool3d(h, 1)
check N=2 CI=1 CO=1 D=1 H=1 W=2; N=2 CI=3 CO=5 D=3 H=4 W=5; N=3 CI=2 CO=3 D=5 H=3 W=7; N=2 CI=4 CO=2 D=2 H=9 W=3
bench N=32 CI=32 CO=32 D=16 H=32 W=32 weight=0.5; N=8 CI=64 CO=32 D=16 H=64 W=64 weight=0.5
bench cpu N=1 CI=4 CO=4 D=4 H=8 W=8 weight=1
