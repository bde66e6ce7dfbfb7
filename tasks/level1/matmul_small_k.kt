# C = A @ B with K = 32 or 64: writing the [M, N] output dominates (4 GiB
# at the first bench shape), so the bound is memory, not FLOPs.  Dot
# products of 64 terms are exact enough for the default tolerance.
task matmul_small_k
level 1
category MatrixMultiply
about "Matrix multiplication with a small K dimension: C = A @ B, K <= 64 (KernelBench L1 #7_Matmul_with_small_K_dimension_)"
input  a: f32[M, K] ~ normal
input  b: f32[K, N] ~ normal
output c: f32[M, N]
c = matmul(a, b)
check M=1 K=1 N=1; M=3 K=32 N=5; M=67 K=17 N=131; M=129 K=64 N=33
bench M=32768 K=64 N=32768 weight=0.6; M=65536 K=32 N=16384 weight=0.4
bench cpu M=512 K=32 N=512 weight=1
