# C = A @ B for square N x N matrices of unit normals.  Each output sums N
# products; an ordinary f32 loop over k (cuBLAS included) errs by ~1e-4 to
# 5e-4 near zero at N=4096-6144 on outlier draws, so atol is 5e-3.  TF32 or
# f16 arithmetic errs by ~3e-2 and still fails.
task matmul_square
level 1
category MatrixMultiply
about "Square matrix multiplication C = A @ B (KernelBench L1 #1_Square_matrix_multiplication_)"
input  a: f32[N, N] ~ normal
input  b: f32[N, N] ~ normal
output c: f32[N, N]
c = matmul(a, b)
check N=1; N=17; N=67; N=131
bench N=4096 weight=0.6; N=6144 weight=0.4
bench cpu N=256 weight=1
tol atol=5e-3 rtol=1e-4
