# Exclusive prefix sum: y[i] = x[0] + ... + x[i-1], y[0] = 0.  Tolerance as
# in cumsum (running sums wander to ~+-200 and cross zero).
task cumsum_exclusive
level 1
category Math
about "Exclusive cumulative sum along dim 1: cumsum(x) - x (KernelBench L1 #92_cumsum_exclusive)"
input  x: f32[B, N] ~ normal
output y: f32[B, N]
y = cumsum(x, dim=1) - x
check B=1 N=1; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=32768 N=16384 weight=0.6; B=8192 N=32768 weight=0.4
bench cpu B=256 N=4096 weight=1
tol atol=1e-2 rtol=1e-4
