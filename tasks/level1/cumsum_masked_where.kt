# Masked cumulative sum with the mask applied by where (about half of the
# elements count).  Tolerance as in cumsum.
task cumsum_masked_where
level 1
category Math
about "Masked cumulative sum along dim 1: cumsum(where(mask, x, 0.0), dim=1) (KernelBench L1 #93_masked_cumsum)"
input  x: f32[B, N] ~ normal
input  mask: bool[B, N] ~ randint(0, 2)
output y: f32[B, N]
y = cumsum(where(mask, x, 0.0), dim=1)
check B=1 N=3; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=32768 N=16384 weight=0.6; B=8192 N=32768 weight=0.4
bench cpu B=256 N=4096 weight=1
tol atol=1e-2 rtol=1e-4
