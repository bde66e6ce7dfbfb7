# y = A @ b with b a column [K, 1], as KernelBench #4.  Memory-bound: the
# bench shapes stream 4 GiB and 5 GiB of A.  Dot products of 16384 terms
# carry ~1e-3 of f32 rounding near zero, hence atol 1e-2.
task matvec
level 1
category MatrixMultiply
about "Matrix-vector multiplication y = A @ b, b of shape [K, 1] (KernelBench L1 #4_Matrix_vector_multiplication_)"
input  a: f32[M, K] ~ normal
input  b: f32[K, 1] ~ normal
output y: f32[M, 1]
y = matmul(a, b)
check M=1 K=1; M=3 K=1000; M=17 K=4097; M=130 K=31
bench M=81920 K=16384 weight=0.6; M=1310720 K=1024 weight=0.4
bench cpu M=1024 K=1024 weight=1
tol atol=1e-2 rtol=1e-4
