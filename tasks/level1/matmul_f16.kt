# Half-precision GEMM: f16 in, f16 out, as torch.matmul on f16 tensors
# (products accumulated in f32 by cuBLAS, one rounding to f16 at the end).
# Judged at the f16 tolerance (1e-2); accumulating in f16 fails it.
task matmul_f16
level 1
category MatrixMultiply
about "Matrix multiplication in float16: C = A @ B with f16 inputs and output"
input  a: f16[M, K] ~ normal
input  b: f16[K, N] ~ normal
output c: f16[M, N]
c = matmul(a, b)
check M=1 K=1 N=1; M=3 K=37 N=5; M=67 K=19 N=131; M=33 K=257 N=7
bench M=8192 K=8192 N=8192 weight=0.5; M=16384 K=4096 N=8192 weight=0.5
bench cpu M=256 K=256 N=256 weight=1
