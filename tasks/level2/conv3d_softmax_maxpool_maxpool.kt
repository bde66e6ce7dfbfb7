# Softmax over the CO channels, then two 2x2x2 max pools (stride 2, floor): (D-2)/4 per spatial dim.
task conv3d_softmax_maxpool_maxpool
level 2
category Fusion
about "Conv3d 3x3x3, softmax over channels, MaxPool3d(2) twice (KernelBench L2 #6_Conv3d_Softmax_MaxPool_MaxPool)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CO, CI, 3, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, (D-2)/2/2, (H-2)/2/2, (W-2)/2/2]
y = max_pool3d(max_pool3d(softmax(conv3d(x, w, b), dim=1), 2), 2)
check N=1 CI=1 CO=2 D=6 H=6 W=6; N=2 CI=3 CO=5 D=7 H=9 W=8; N=1 CI=2 CO=3 D=11 H=6 W=13; N=2 CI=4 CO=7 D=6 H=13 W=7
bench N=16 CI=16 CO=32 D=32 H=64 W=64 weight=0.5; N=8 CI=32 CO=64 D=16 H=128 W=128 weight=0.5
bench cpu N=1 CI=4 CO=8 D=8 H=16 W=16 weight=1
