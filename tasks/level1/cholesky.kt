# Cholesky factors of many small symmetric positive-definite matrices
# (torch.linalg.cholesky): L lower triangular with a positive diagonal and
# A = L L^T, unique, so L is compared directly.  A is drawn `spd`
# (symmetric, diagonal n + U(0, 1), off-diagonal U(-1, 1)): strictly
# diagonally dominant, its condition number below ~2n, so an honest f32
# factorisation errs by ~1e-6 relative; the upper triangle of L must be 0.
task cholesky
level 1
category LinearAlgebra
about "Batched Cholesky factorisation L = torch.linalg.cholesky(A) of symmetric positive-definite A [Q, N, N] (lower factor; only A's lower triangle is read; the upper triangle of L is 0)"
input  a: f32[Q, N, N] ~ spd
output l: f32[Q, N, N]
l = linalg_cholesky(a)
check Q=1 N=1; Q=3 N=5; Q=2 N=33; Q=1 N=70
bench Q=786432 N=32 weight=0.5; Q=196608 N=64 weight=0.5
bench cpu Q=512 N=32 weight=1
