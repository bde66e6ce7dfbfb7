# BatchNorm1d in training mode (statistics over the N rows), exact GELU,
# GroupNorm of G groups of CG features (eps 1e-5, affine), the mean over all
# features (keepdim), ReLU.  The linear layer has no bias (the batch mean
# cancels it).  A group-normalized row has mean 0 per group, so the output is
# the mean of (gw - mean gw) * z + gb: ~1e-3, hence atol 1e-7.
task gemm_batchnorm_gelu_groupnorm_mean_relu
level 2
category Fusion
about "Linear, BatchNorm1d (batch statistics), GELU, GroupNorm (G groups of CG, affine), mean over features, ReLU (KernelBench L2 #41_Gemm_BatchNorm_GELU_GroupNorm_Mean_ReLU)"
input  x: f32[N, IN] ~ normal
param  w: f32[G*CG, IN] ~ kaiming
param  bn_g: f32[G*CG] ~ uniform(0.5, 1.5)
param  bn_b: f32[G*CG] ~ uniform(-0.1, 0.1)
param  gw: f32[G*CG] ~ uniform(0.5, 1.5)
param  gb: f32[G*CG] ~ uniform(-0.1, 0.1)
output y: f32[N, 1]
h = gelu(batch_norm(linear(x, w), weight=bn_g, bias=bn_b, training=True))
y = relu(mean(group_norm(h, G, weight=gw, bias=gb), dim=1, keepdim=True))
check N=2 IN=1 G=1 CG=2; N=3 IN=37 G=2 CG=5; N=17 IN=129 G=3 CG=23; N=5 IN=1000 G=4 CG=3
bench N=1024 IN=8192 G=32 CG=256 weight=0.5; N=8192 IN=4096 G=16 CG=256 weight=0.5
bench cpu N=128 IN=256 G=8 CG=32 weight=1
tol atol=1e-7 rtol=1e-4
