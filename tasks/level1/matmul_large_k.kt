# C = A @ B with a long inner dim K = 65536 and a small output (KernelBench
# #6 uses M = N = 256).  Sums of 65536 unit-normal products are ~256 and,
# on outlier draws, ~600; a blocked f32 sum errs by up to ~1e-2 near zero,
# so atol is 5e-2.  TF32 or f16 products err by ~0.2 and still fail.
task matmul_large_k
level 1
category MatrixMultiply
about "Matrix multiplication with a large K dimension: C = A @ B, K = 65536 (KernelBench L1 #6_Matmul_with_large_K_dimension_)"
input  a: f32[M, K] ~ normal
input  b: f32[K, N] ~ normal
output c: f32[M, N]
c = matmul(a, b)
check M=1 K=1 N=1; M=3 K=1000 N=5; M=17 K=4099 N=7; M=2 K=65537 N=3
bench M=1024 K=65536 N=1024 weight=0.6; M=512 K=65536 N=4096 weight=0.4
bench cpu M=64 K=16384 N=64 weight=1
tol atol=5e-2 rtol=1e-4
