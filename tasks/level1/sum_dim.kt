# Sum over the middle dim, keeping it: a strided reduction.  Sums of up to
# 65536 terms of magnitude ~1 carry f32 rounding of a few 1e-4 near zero
# whatever the order, so the absolute tolerance is widened to 1e-3; a
# bf16/f16 accumulation still misses it by orders of magnitude.
task sum_dim
level 1
category Reduce
about "Sum over dim 1 with keepdim=True (KernelBench L1 #47_Sum_reduction_over_a_dimension)"
input  x: f32[B, M, N] ~ normal
output y: f32[B, 1, N]
y = sum(x, dim=1, keepdim=True)
check B=1 M=1 N=1; B=3 M=17 N=5; B=2 M=1001 N=33; B=5 M=7 N=257
bench B=160 M=4096 N=2048 weight=0.6; B=80 M=65536 N=256 weight=0.4
bench cpu B=16 M=256 N=256 weight=1
tol atol=1e-3 rtol=1e-4
