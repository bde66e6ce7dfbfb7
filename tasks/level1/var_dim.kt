# Population variance (correction=0) over the last dim.  Inputs have mean
# 0.5 and std 2: a one-pass sum-of-squares formula loses digits to the
# mean; Welford or two passes keep them.
task var_dim
level 1
category Reduce
about "Variance over the last dim without Bessel's correction (correction=0)"
input  x: f32[B, N] ~ normal(0.5, 2.0)
output y: f32[B]
y = var(x, dim=-1, correction=0)
check B=1 N=1; B=3 N=1000; B=17 N=4097; B=4 N=3
bench B=65536 N=16384 weight=0.6; B=4096 N=262144 weight=0.4
bench cpu B=256 N=4096 weight=1
