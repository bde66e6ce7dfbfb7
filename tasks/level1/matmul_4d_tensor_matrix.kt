# einsum("bijl,lk->bijk"): a 4-D tensor times a matrix over its last dim.
# The first bench shape is KernelBench's (i=256 j=512 l=256 k=768) with
# b=4 instead of 16, ~4 ms of f32 GEMM.  Dot products of 256 terms; atol
# 1e-3 covers f32 rounding near zero on outlier draws, TF32 still fails.
task matmul_4d_tensor_matrix
level 1
category MatrixMultiply
about "4-D tensor times matrix: C[b,i,j,:] = A[b,i,j,:] @ B (KernelBench L1 #11_4D_tensor_matrix_multiplication)"
input  a: f32[B, I, J, L] ~ normal
input  b: f32[L, K] ~ normal
output c: f32[B, I, J, K]
c = matmul(a, b)
check B=1 I=1 J=1 L=1 K=1; B=2 I=3 J=5 L=37 K=7; B=1 I=2 J=67 L=19 K=131; B=3 I=1 J=5 L=257 K=33
bench B=4 I=256 J=512 L=256 K=768 weight=0.6; B=8 I=128 J=1024 L=512 K=256 weight=0.4
bench cpu B=2 I=8 J=64 L=64 K=128 weight=1
tol atol=1e-3 rtol=1e-4
