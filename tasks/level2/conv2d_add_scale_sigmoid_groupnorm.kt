# The conv has no bias of its own (KernelBench adds one right after it: two
# per-channel biases in a row are one).  GroupNorm of G groups of CG
# channels, eps 1e-5, affine.
task conv2d_add_scale_sigmoid_groupnorm
level 2
category Fusion
about "Conv2d 3x3, add a per-channel bias, scale per channel, sigmoid, GroupNorm (affine) (KernelBench L2 #21_Conv2d_Add_Scale_Sigmoid_GroupNorm)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[G*CG, CI, 3, 3] ~ kaiming
param  bias: f32[G*CG, 1, 1] ~ uniform(-0.1, 0.1)
param  scale: f32[G*CG, 1, 1] ~ uniform(0.5, 1.5)
param  gw: f32[G*CG] ~ uniform(0.5, 1.5)
param  gb: f32[G*CG] ~ uniform(-0.1, 0.1)
output y: f32[N, G*CG, H-2, W-2]
h = sigmoid((conv2d(x, w) + bias) * scale)
y = group_norm(h, G, weight=gw, bias=gb)
check N=1 CI=1 G=1 CG=2 H=3 W=4; N=2 CI=3 G=2 CG=3 H=7 W=9; N=1 CI=4 G=3 CG=5 H=17 W=13; N=3 CI=2 G=4 CG=1 H=33 W=6
bench N=64 CI=32 G=8 CG=8 H=128 W=128 weight=0.5; N=16 CI=64 G=16 CG=8 H=256 W=256 weight=0.5
bench cpu N=2 CI=8 G=4 CG=4 H=32 W=32 weight=1
