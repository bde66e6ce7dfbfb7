# torch.matmul's batch broadcasting: a [B, H, M, K] @ b [H, K, N], the
# same H matrices of b for every b-index (as a per-head weight).  Tolerance
# as in matmul_square.
task matmul_broadcast_batch
level 1
category MatrixMultiply
about "Batched 4-D matmul with a broadcast operand: [B, H, M, K] @ [H, K, N] -> [B, H, M, N]"
input  a: f32[B, H, M, K] ~ normal
input  b: f32[H, K, N] ~ normal
output c: f32[B, H, M, N]
c = matmul(a, b)
check B=1 H=1 M=1 K=1 N=1; B=2 H=3 M=5 K=37 N=7; B=3 H=1 M=67 K=19 N=131; B=1 H=2 M=3 K=257 N=33
bench B=8 H=16 M=1024 K=1024 N=1024 weight=0.6; B=32 H=8 M=512 K=1024 N=512 weight=0.4
bench cpu B=2 H=4 M=64 K=64 N=128 weight=1
tol atol=5e-3 rtol=1e-4
