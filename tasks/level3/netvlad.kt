# NetVLAD pooling without ghost clusters, as KernelBench's module: soft
# assignment of each of the N features to K clusters (a projection,
# BatchNorm1d with batch statistics over the B*N rows, softmax), residuals
# to the cluster centres summed per cluster, intra-normalization over D,
# then L2 normalization of the flattened D*K vector (F.normalize, eps
# 1e-12).  Outputs are ~1/sqrt(D*K): atol 1e-6 keeps the check relative.
task netvlad
level 3
category Architecture
about "NetVLAD (no ghost clusters): softmax(BN(x @ clusters)) assignments, residual aggregation, intra- and L2-normalization (KernelBench L3 #47_NetVladNoGhostClusters)"
input  x: f32[B, N, D] ~ normal
param  clusters: f32[D, K] ~ kaiming
param  bn_g: f32[K] ~ uniform(0.5, 1.5)
param  bn_b: f32[K] ~ uniform(-0.1, 0.1)
param  clusters2: f32[D, K] ~ normal(0, 0.05)
output y: f32[B, D*K]
s = matmul(reshape(x, [-1, D]), clusters)
sn = (s - mean(s, dim=0, keepdim=True)) / sqrt(var(s, dim=0, correction=0, keepdim=True) + 1e-5) * bn_g + bn_b
a = reshape(softmax(sn, dim=1), [B, N, K])
vlad = transpose(matmul(transpose(a, 1, 2), x), 1, 2) - sum(a, dim=1, keepdim=True) * clusters2
vn = reshape(vlad / clamp(sqrt(sum(vlad * vlad, dim=1, keepdim=True)), min=1e-12), [B, -1])
y = vn / clamp(sqrt(sum(vn * vn, dim=1, keepdim=True)), min=1e-12)
check B=1 N=3 D=2 K=2; B=2 N=5 D=7 K=3; B=3 N=17 D=33 K=5; B=2 N=100 D=13 K=32
bench B=4096 N=256 D=512 K=64 weight=0.5; B=4096 N=100 D=1024 K=32 weight=0.5
bench cpu B=4 N=64 D=64 K=16 weight=1
tol atol=1e-6 rtol=1e-4
