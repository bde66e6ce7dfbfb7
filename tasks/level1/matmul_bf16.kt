# bfloat16 GEMM: bf16 in, bf16 out, as torch.matmul on bf16 tensors
# (products accumulated in f32, one rounding to bf16 at the end).  Judged at
# the bf16 tolerance (1e-2); accumulating in bf16 fails it.
task matmul_bf16
level 1
category MatrixMultiply
about "Matrix multiplication in bfloat16: C = A @ B with bf16 inputs and output"
input  a: bf16[M, K] ~ normal
input  b: bf16[K, N] ~ normal
output c: bf16[M, N]
c = matmul(a, b)
check M=1 K=1 N=1; M=3 K=37 N=5; M=67 K=19 N=131; M=33 K=257 N=7
bench M=8192 K=8192 N=8192 weight=0.5; M=16384 K=4096 N=8192 weight=0.5
bench cpu M=256 K=256 N=256 weight=1
