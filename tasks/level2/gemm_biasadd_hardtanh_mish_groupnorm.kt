# GroupNorm over the G*CG features: each group of CG features of a row
# normalized (biased variance, eps 1e-5), then a per-feature affine;
# written with reshape and layer_norm.  Check shapes keep CG >= 2: a group
# of one feature normalizes to 0.
task gemm_biasadd_hardtanh_mish_groupnorm
level 2
category Fusion
about "Linear, add a bias vector, HardTanh, Mish, GroupNorm (eps 1e-5, affine) (KernelBench L2 #94_Gemm_BiasAdd_Hardtanh_Mish_GroupNorm)"
input  x: f32[N, IN] ~ normal
param  w: f32[G*CG, IN] ~ kaiming
param  b: f32[G*CG] ~ uniform(-0.1, 0.1)
param  gw: f32[G*CG] ~ uniform(0.5, 1.5)
param  gb: f32[G*CG] ~ uniform(-0.1, 0.1)
param  a: f32[G*CG] ~ uniform(-0.1, 0.1)
output y: f32[N, G*CG]
t = hardtanh(linear(x, w, b) + a)
h = t * tanh(softplus(t))
y = reshape(layer_norm(reshape(h, [N, G, CG]), [CG], eps=1e-5), [N, -1]) * gw + gb
check N=1 IN=1 G=1 CG=2; N=3 IN=37 G=2 CG=5; N=17 IN=129 G=3 CG=23; N=2 IN=1000 G=4 CG=3
bench N=1024 IN=8192 G=32 CG=256 weight=0.5; N=8192 IN=4096 G=16 CG=256 weight=0.5
bench cpu N=128 IN=256 G=8 CG=32 weight=1
