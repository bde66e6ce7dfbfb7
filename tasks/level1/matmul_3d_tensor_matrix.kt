# A batch of matrices times one shared matrix: [Q, M, K] @ [K, L].  The
# batch folds into M (one GEMM of Q*M rows).  Tolerance as in matmul_square.
task matmul_3d_tensor_matrix
level 1
category MatrixMultiply
about "3-D tensor times matrix: C[q] = A[q] @ B, B shared by the batch (KernelBench L1 #10_3D_tensor_matrix_multiplication)"
input  a: f32[Q, M, K] ~ normal
input  b: f32[K, L] ~ normal
output c: f32[Q, M, L]
c = matmul(a, b)
check Q=1 M=1 K=1 L=1; Q=3 M=5 K=37 L=7; Q=2 M=67 K=19 L=131; Q=5 M=3 K=257 L=33
bench Q=16 M=1024 K=4096 L=2048 weight=0.6; Q=64 M=512 K=2048 L=1024 weight=0.4
bench cpu Q=4 M=64 K=128 L=128 weight=1
tol atol=5e-3 rtol=1e-4
