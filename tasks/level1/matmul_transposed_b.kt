# B is stored transposed, [N, K]: C = A @ B^T (the layout of nn.Linear's
# weight).  Tolerance as in matmul_square.
task matmul_transposed_b
level 1
category MatrixMultiply
about "Matrix multiplication with B transposed: C = A @ B.T, B stored [N, K] (KernelBench L1 #17_Matmul_with_transposed_B)"
input  a: f32[M, K] ~ normal
input  b: f32[N, K] ~ normal
output c: f32[M, N]
c = matmul(a, transpose(b, 0, 1))
check M=1 K=1 N=1; M=3 K=37 N=5; M=67 K=19 N=131; M=33 K=257 N=7
bench M=4096 K=4096 N=4096 weight=0.6; M=8192 K=2048 N=4096 weight=0.4
bench cpu M=256 K=128 N=192 weight=1
tol atol=5e-3 rtol=1e-4
