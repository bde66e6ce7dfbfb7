# Triangular solve (torch.linalg.solve_triangular, left, lower): X = A^-1 B
# for a batch of lower triangular A.  A is drawn `spd` (symmetric, diagonal
# n + U(0, 1), off-diagonal U(-1, 1)): its lower triangle is diagonally
# dominant, so the solve is well conditioned at every size; the upper
# triangle holds values too, and a candidate that reads it (a general LU
# solve) fails.  X is about B / N, so atol is 1e-6: at N = 4096 the RMS of X
# (~2.5e-4) is still 250x atol, and an honest f32 substitution errs by ~1e-9.
task triangular_solve
level 1
category LinearAlgebra
about "Batched lower triangular solve A X = B (torch.linalg.solve_triangular(A, B, upper=False)), A [Q, N, N] (only its lower triangle is read), B [Q, N, K]"
input  a: f32[Q, N, N] ~ spd
input  b: f32[Q, N, K] ~ normal
output x: f32[Q, N, K]
x = linalg_solve_triangular(a, b, upper=False)
check Q=1 N=1 K=1; Q=3 N=5 K=7; Q=2 N=33 K=17; Q=1 N=130 K=3
bench Q=1 N=4096 K=4096 weight=0.5; Q=256 N=512 K=1024 weight=0.5
bench cpu Q=1 N=256 K=256 weight=1
tol atol=1e-6 rtol=1e-4
