# diag(a) @ B scales row i of B by a[i]: written as a broadcasting multiply,
# it is memory-bound (4 GiB read and 4 GiB written at the first bench shape).
# Materializing diag(a) as an N x N matrix is the trap.
task diag_matmul
level 1
category MatrixMultiply
about "Diagonal matrix times a matrix: C = diag(a) @ B (KernelBench L1 #12_Matmul_with_diagonal_matrices_)"
input  a: f32[N] ~ normal
input  b: f32[N, M] ~ normal
output c: f32[N, M]
c = reshape(a, [N, 1]) * b
check N=1 M=1; N=3 M=1000; N=17 M=4097; N=1000 M=5
bench N=65536 M=16384 weight=0.6; N=16384 M=32768 weight=0.4
bench cpu N=1024 M=1024 weight=1
