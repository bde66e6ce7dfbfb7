# Reverse cumulative sum written as KernelBench writes it: flip, inclusive
# cumsum, flip back.  Tolerance as in cumsum.
task cumsum_reverse_flip
level 1
category Math
about "Reverse cumulative sum along dim 1: flip(cumsum(flip(x, [1]), dim=1), [1]) (KernelBench L1 #91_cumsum_reverse)"
input  x: f32[B, N] ~ normal
output y: f32[B, N]
y = flip(cumsum(flip(x, [1]), dim=1), [1])
check B=1 N=1; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=32768 N=16384 weight=0.6; B=8192 N=32768 weight=0.4
bench cpu B=256 N=4096 weight=1
tol atol=1e-2 rtol=1e-4
