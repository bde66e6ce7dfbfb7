# Inclusive prefix sum along rows.  Prefix sums of up to 32768 normal values
# wander to ~+-200 and cross zero; a plain f32 scan then errs by ~1e-3 near
# the crossings, so atol is 1e-2 (KernelBench's own tolerance).  A bf16/f16
# scan still fails it by far.
task cumsum
level 1
category Math
about "Inclusive cumulative sum along dim 1 (KernelBench L1 #89_cumsum)"
input  x: f32[B, N] ~ normal
output y: f32[B, N]
y = cumsum(x, dim=1)
check B=1 N=1; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=32768 N=16384 weight=0.6; B=16384 N=32768 weight=0.4
bench cpu B=256 N=4096 weight=1
tol atol=1e-2 rtol=1e-4
