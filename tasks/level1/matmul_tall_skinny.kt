# A tall A [M, K] with M >= 2^19 against a small B [K, N]: few columns
# of output per row, so a square-tile kernel wastes most of its threads.
# Dot products of <= 512 terms; atol 1e-3 covers f32 rounding near zero on
# outlier draws, TF32 (errors ~1e-2) still fails.
task matmul_tall_skinny
level 1
category MatrixMultiply
about "Tall-skinny matrix multiplication C = A @ B, A [M, K] with M >> K, N (cf. KernelBench L1 #9_Tall_skinny_matrix_multiplication_)"
input  a: f32[M, K] ~ normal
input  b: f32[K, N] ~ normal
output c: f32[M, N]
c = matmul(a, b)
check M=1 K=1 N=1; M=1000 K=3 N=5; M=4099 K=17 N=31; M=257 K=129 N=2
bench M=1048576 K=256 N=256 weight=0.6; M=524288 K=512 N=128 weight=0.4
bench cpu M=16384 K=64 N=64 weight=1
tol atol=1e-3 rtol=1e-4
