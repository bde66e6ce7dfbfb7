# Exclusive cumulative sum as a shifted inclusive one: pad(x, [1, -1]) puts
# a 0 first and drops the last element (KernelBench cats a zero column and
# narrows), so y[i] = x[0] + ... + x[i-1] with no cancellation.  Tolerance
# as in cumsum.
task cumsum_exclusive_shift
level 1
category Math
about "Exclusive cumulative sum along dim 1: cumsum(pad(x, [1, -1]), dim=1) (KernelBench L1 #92_cumsum_exclusive)"
input  x: f32[B, N] ~ normal
output y: f32[B, N]
y = cumsum(pad(x, [1, -1]), dim=1)
check B=1 N=2; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=32768 N=16384 weight=0.6; B=8192 N=32768 weight=0.4
bench cpu B=256 N=4096 weight=1
tol atol=1e-2 rtol=1e-4
