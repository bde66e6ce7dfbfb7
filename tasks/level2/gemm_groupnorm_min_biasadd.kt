# As KernelBench wrote it: the row minimum [N, 1] plus a bias of shape
# [1, OUT, 1, 1] broadcasts to [1, OUT, N, 1] (every bias entry plus every
# row's minimum).
task gemm_groupnorm_min_biasadd
level 2
category Fusion
about "Linear, GroupNorm (affine), min over features (keepdim), then + bias[1, OUT, 1, 1] broadcast to [1, OUT, N, 1] (KernelBench L2 #75_Gemm_GroupNorm_Min_BiasAdd)"
input  x: f32[N, IN] ~ normal
param  w: f32[G*CG, IN] ~ kaiming
param  b: f32[G*CG] ~ uniform(-0.1, 0.1)
param  gw: f32[G*CG] ~ uniform(0.5, 1.5)
param  gb: f32[G*CG] ~ uniform(-0.1, 0.1)
param  bias: f32[1, G*CG, 1, 1] ~ uniform(-0.1, 0.1)
output y: f32[1, G*CG, N, 1]
h = group_norm(linear(x, w, b), G, weight=gw, bias=gb)
y = min(h, dim=1, keepdim=True) + bias
check N=1 IN=1 G=1 CG=2; N=3 IN=37 G=2 CG=5; N=17 IN=129 G=3 CG=23; N=2 IN=1000 G=4 CG=3
bench N=1024 IN=8192 G=32 CG=256 weight=0.5; N=8192 IN=4096 G=16 CG=256 weight=0.5
bench cpu N=128 IN=256 G=8 CG=32 weight=1
