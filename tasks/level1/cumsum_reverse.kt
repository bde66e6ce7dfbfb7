# Reverse (suffix) sum: y[i] = x[i] + ... + x[N-1], written as the row
# total minus the inclusive prefix sum plus x.  Tolerance as in cumsum.
task cumsum_reverse
level 1
category Math
about "Reverse cumulative sum along dim 1: y[i] = sum(x[i:]) (KernelBench L1 #91_cumsum_reverse)"
input  x: f32[B, N] ~ normal
output y: f32[B, N]
y = sum(x, dim=1, keepdim=True) - cumsum(x, dim=1) + x
check B=1 N=1; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=32768 N=16384 weight=0.6; B=8192 N=32768 weight=0.4
bench cpu B=256 N=4096 weight=1
tol atol=1e-2 rtol=1e-4
