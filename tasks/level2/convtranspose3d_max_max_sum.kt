# Two max pools (2, then 3 with stride 3, floor) and the sum over channels:
# 2D -> D -> D/3, so check shapes have D, H, W >= 3.
task convtranspose3d_max_max_sum
level 2
category Fusion
about "ConvTranspose3d 3x3x3 stride 2, MaxPool3d(2), MaxPool3d(3), sum over channels (keepdim) (KernelBench L2 #78_ConvTranspose3d_Max_Max_Sum)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CI, CO, 3, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, 1, D/3, H/3, W/3]
p = max_pool3d(max_pool3d(conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1), 2), 3)
y = sum(p, dim=1, keepdim=True)
check N=1 CI=1 CO=1 D=3 H=3 W=3; N=2 CI=3 CO=5 D=3 H=4 W=5; N=1 CI=2 CO=3 D=5 H=3 W=7; N=2 CI=4 CO=2 D=4 H=9 W=3
bench N=64 CI=32 CO=32 D=18 H=33 W=33 weight=0.5; N=8 CI=64 CO=32 D=16 H=66 W=66 weight=0.5
bench cpu N=1 CI=4 CO=4 D=4 H=8 W=8 weight=1
