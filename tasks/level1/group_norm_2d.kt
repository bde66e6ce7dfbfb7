# nn.GroupNorm(num_groups=G, num_channels=G*CG) as one op: each (sample,
# group) normalized over its CG channels and H, W (biased variance, eps
# 1e-5), then a per-channel affine.
task group_norm_2d
level 1
category Normalization
about "GroupNorm with G groups of CG channels, eps 1e-5, weight and bias: group_norm(x, G, w, b) (KernelBench L1 #35_GroupNorm_)"
input  x: f32[N, G*CG, H, W] ~ normal
param  w: f32[G*CG] ~ uniform(0.5, 1.5)
param  b: f32[G*CG] ~ uniform(-0.1, 0.1)
output y: f32[N, G*CG, H, W]
y = group_norm(x, G, w, b, eps=1e-5)
check N=1 G=1 CG=2 H=1 W=1; N=2 G=3 CG=5 H=7 W=3; N=3 G=4 CG=1 H=33 W=31; N=1 G=2 CG=3 H=17 W=129
bench N=56 G=8 CG=8 H=512 W=512 weight=0.6; N=64 G=16 CG=8 H=256 W=256 weight=0.4
bench cpu N=4 G=4 CG=4 H=64 W=64 weight=1
