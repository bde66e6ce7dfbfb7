# A is stored transposed, [K, M]: C = A^T @ B.  transpose() here only states
# the layout; a candidate reads A as stored.  Tolerance as in matmul_square.
task matmul_transposed_a
level 1
category MatrixMultiply
about "Matrix multiplication with A transposed: C = A.T @ B, A stored [K, M] (KernelBench L1 #16_Matmul_with_transposed_A)"
input  a: f32[K, M] ~ normal
input  b: f32[K, N] ~ normal
output c: f32[M, N]
c = matmul(transpose(a, 0, 1), b)
check K=1 M=1 N=1; K=37 M=3 N=5; K=19 M=67 N=131; K=257 M=33 N=7
bench K=4096 M=4096 N=4096 weight=0.6; K=2048 M=8192 N=4096 weight=0.4
bench cpu K=128 M=256 N=192 weight=1
tol atol=5e-3 rtol=1e-4
