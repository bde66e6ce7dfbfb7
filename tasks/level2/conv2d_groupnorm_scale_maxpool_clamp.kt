# GroupNorm of G groups of CG channels (eps 1e-5, affine), * scale[C, 1, 1], 2x2 max pool, clamp(0, 1).
task conv2d_groupnorm_scale_maxpool_clamp
level 2
category Fusion
about "Conv2d 3x3, GroupNorm (affine), per-channel scale, MaxPool2d(2), clamp to [0, 1] (KernelBench L2 #85_Conv2d_GroupNorm_Scale_MaxPool_Clamp)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[G*CG, CI, 3, 3] ~ kaiming
param  b: f32[G*CG] ~ uniform(-0.1, 0.1)
param  gw: f32[G*CG] ~ uniform(0.5, 1.5)
param  gb: f32[G*CG] ~ uniform(-0.1, 0.1)
param  scale: f32[G*CG, 1, 1] ~ uniform(0.5, 1.5)
output y: f32[N, G*CG, (H-2)/2, (W-2)/2]
h = group_norm(conv2d(x, w, b), G, weight=gw, bias=gb) * scale
y = clamp(max_pool2d(h, 2), min=0.0, max=1.0)
check N=1 CI=1 G=1 CG=2 H=4 W=4; N=2 CI=3 G=2 CG=3 H=7 W=9; N=1 CI=4 G=3 CG=5 H=17 W=13; N=3 CI=2 G=4 CG=1 H=33 W=6
bench N=64 CI=32 G=8 CG=8 H=128 W=128 weight=0.5; N=16 CI=64 G=16 CG=8 H=256 W=256 weight=0.5
bench cpu N=2 CI=8 G=4 CG=4 H=32 W=32 weight=1
