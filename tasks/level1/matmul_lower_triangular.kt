# The product of two lower triangular matrices: as
# matmul_upper_triangular, mirrored.  The roofline counts dense GEMM FLOPs.
task matmul_lower_triangular
level 1
category MatrixMultiply
about "Lower triangular matrix product C = tril(tril(A) @ tril(B)) (KernelBench L1 #15_Matmul_for_lower_triangular_matrices)"
input  a: f32[N, N] ~ normal
input  b: f32[N, N] ~ normal
output c: f32[N, N]
c = tril(matmul(tril(a), tril(b)))
check N=2; N=17; N=67; N=131
bench N=4096 weight=0.6; N=6144 weight=0.4
bench cpu N=256 weight=1
tol atol=5e-3 rtol=1e-4
