# C[M, N] = A[M, K] @ B[K, N]; tolerance as in matmul_square.
task matmul_rect
level 1
category MatrixMultiply
about "Rectangular matrix multiplication C = A @ B (KernelBench L1 #2_Standard_matrix_multiplication_)"
input  a: f32[M, K] ~ normal
input  b: f32[K, N] ~ normal
output c: f32[M, N]
c = matmul(a, b)
check M=1 K=1 N=1; M=3 K=37 N=5; M=67 K=19 N=131; M=33 K=257 N=7
bench M=8192 K=2048 N=4096 weight=0.5; M=2048 K=8192 N=4096 weight=0.5
bench cpu M=256 K=128 N=192 weight=1
tol atol=5e-3 rtol=1e-4
