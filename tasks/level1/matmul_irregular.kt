# Odd sizes that fit no tile: every block of a tiled kernel has a ragged
# edge.  Tolerance as in matmul_square.
task matmul_irregular
level 1
category MatrixMultiply
about "Matrix multiplication with irregular shapes: C = A @ B, M, K, N not multiples of any tile (KernelBench L1 #8_Matmul_with_irregular_shapes_)"
input  a: f32[M, K] ~ normal
input  b: f32[K, N] ~ normal
output c: f32[M, N]
c = matmul(a, b)
check M=1 K=1 N=1; M=3 K=37 N=5; M=67 K=19 N=131; M=33 K=257 N=7
bench M=8205 K=2949 N=5921 weight=0.6; M=4099 K=8191 N=3071 weight=0.4
bench cpu M=211 K=149 N=197 weight=1
tol atol=5e-3 rtol=1e-4
