# The product of two upper triangular matrices (upper triangular itself).
# KernelBench passes triangular inputs; here the task takes the triangles of
# dense inputs, so a candidate may read only the upper halves.  c[i, j] sums
# j - i + 1 products.  The roofline counts the dense GEMM's 2N^3 FLOPs (the
# triangular product needs N^3/3), so T_sol here is loose.
task matmul_upper_triangular
level 1
category MatrixMultiply
about "Upper triangular matrix product C = triu(triu(A) @ triu(B)) (KernelBench L1 #14_Matmul_for_upper_triangular_matrices)"
input  a: f32[N, N] ~ normal
input  b: f32[N, N] ~ normal
output c: f32[N, N]
c = triu(matmul(triu(a), triu(b)))
check N=2; N=17; N=67; N=131
bench N=4096 weight=0.6; N=6144 weight=0.4
bench cpu N=256 weight=1
tol atol=5e-3 rtol=1e-4
