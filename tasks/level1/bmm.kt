task bmm
level 1
category MatrixMultiply
about "Batched matrix multiplication C[b] = A[b] @ B[b] (KernelBench L1 #3_Batched_matrix_multiplication)"
input  a: f32[Q, M, K] ~ normal
input  b: f32[Q, K, N] ~ normal
output c: f32[Q, M, N]
c = bmm(a, b)
check Q=1 M=1 K=1 N=1; Q=3 M=5 K=17 N=7; Q=2 M=33 K=130 N=31; Q=5 M=1 K=64 N=129
bench Q=128 M=512 K=1024 N=1024 weight=0.6; Q=32 M=1024 K=2048 N=512 weight=0.4
bench cpu Q=8 M=128 K=128 N=128 weight=1
tol atol=5e-3 rtol=1e-4
