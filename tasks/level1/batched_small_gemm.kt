# Many small matrix products (KernelBench-X LinearAlgebra: batched small
# GEMM): C[q] = A[q] @ B[q] with 16x16 and 32x32 matrices.  Each product is
# too small for a tensor-core tile pipeline of its own; the work is moving
# 3 * Q small matrices, so the roofline is the memory traffic.  Sums of 16-32
# products of unit normals: f32 errs by ~1e-6, so the default tolerance holds.
task batched_small_gemm
level 1
category LinearAlgebra
about "Batched small matrix multiplication C[q] = A[q] @ B[q] for many 16x16 or 32x32 matrices (torch.bmm)"
input  a: f32[Q, M, K] ~ normal
input  b: f32[Q, K, N] ~ normal
output c: f32[Q, M, N]
c = bmm(a, b)
check Q=1 M=1 K=1 N=1; Q=7 M=16 K=16 N=16; Q=33 M=32 K=32 N=32; Q=5 M=17 K=31 N=9
bench Q=524288 M=32 K=32 N=32 weight=0.5; Q=2097152 M=16 K=16 N=16 weight=0.5
bench cpu Q=4096 M=16 K=16 N=16 weight=1
