task sum_tight
level 1
category Reduce
about "Row sums of a long f32 row, with a tolerance tighter than f32 arithmetic gives: the eager baseline's own error is above it (tests/cli/t19_budget.sh)"
input  x: f32[B, N] ~ normal
output y: f32[B]
y = sum(x, dim=1)
tol atol=1e-7 rtol=0
check B=1 N=1; B=3 N=4001; B=16 N=20011
bench B=2048 N=20000 weight=1
bench cpu B=64 N=20000 weight=1
