# Prefix sum of the elements where the boolean mask is set (about half).
# Tolerance as in cumsum.
task cumsum_masked
level 1
category Math
about "Masked cumulative sum along dim 1: cumsum(x * mask) (KernelBench L1 #93_masked_cumsum)"
input  x: f32[B, N] ~ normal
input  mask: bool[B, N] ~ randint(0, 2)
output y: f32[B, N]
y = cumsum(x * mask, dim=1)
check B=1 N=1; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=32768 N=16384 weight=0.6; B=8192 N=32768 weight=0.4
bench cpu B=256 N=4096 weight=1
tol atol=1e-2 rtol=1e-4
