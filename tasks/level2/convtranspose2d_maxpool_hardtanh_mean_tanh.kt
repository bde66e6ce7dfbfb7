# Result [N, CO, 1, 1].
task convtranspose2d_maxpool_hardtanh_mean_tanh
level 2
category Fusion
about "ConvTranspose2d 3x3 stride 2, MaxPool2d(2), HardTanh [-1, 1], mean over positions (keepdim), tanh (KernelBench L2 #10_ConvTranspose2d_MaxPool_Hardtanh_Mean_Tanh)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, CO, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, 1, 1]
h = hardtanh(max_pool2d(conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1), 2), min_val=-1.0, max_val=1.0)
y = tanh(reshape(mean(reshape(h, [N, CO, -1]), dim=2), [N, CO, 1, 1]))
check N=1 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=4 W=5; N=1 CI=4 CO=3 H=9 W=7; N=3 CI=2 CO=7 H=17 W=3
bench N=64 CI=64 CO=32 H=128 W=128 weight=0.5; N=32 CI=128 CO=64 H=128 W=128 weight=0.5
bench cpu N=2 CI=8 CO=4 H=16 W=16 weight=1
