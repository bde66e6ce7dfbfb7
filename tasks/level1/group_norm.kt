# GroupNorm: the C = G*CG channels split into G groups, each group of one
# sample normalized over its CG channels and H, W (biased variance, eps
# 1e-5), then a per-channel affine.  Written with reshapes and layer_norm.
task group_norm
level 1
category Normalization
about "GroupNorm with G groups of CG channels, eps 1e-5, per-channel weight and bias (KernelBench L1 #35_GroupNorm_)"
input  x: f32[N, G*CG, H, W] ~ normal
param  w: f32[G*CG] ~ uniform(0.5, 1.5)
param  b: f32[G*CG] ~ uniform(-0.1, 0.1)
output y: f32[N, G*CG, H, W]
h = layer_norm(reshape(x, [N, G, CG, H, W]), [CG, H, W], eps=1e-5)
y = reshape(h, [N, -1, H, W]) * reshape(w, [1, -1, 1, 1]) + reshape(b, [1, -1, 1, 1])
check N=1 G=1 CG=2 H=1 W=1; N=2 G=3 CG=5 H=7 W=3; N=3 G=4 CG=1 H=33 W=31; N=1 G=2 CG=3 H=17 W=129
bench N=64 G=8 CG=8 H=256 W=256 weight=0.6; N=16 G=32 CG=8 H=128 W=256 weight=0.4
bench cpu N=4 G=4 CG=4 H=64 W=64 weight=1
