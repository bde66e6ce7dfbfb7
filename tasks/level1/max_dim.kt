task max_dim
level 1
category Reduce
about "Max over the last dim, values only (KernelBench L1 #49_Max_reduction_over_a_dimension)"
input  x: f32[B, N] ~ normal
output y: f32[B]
y = max(x, dim=-1)
check B=1 N=1; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=81920 N=16384 weight=0.6; B=5120 N=262144 weight=0.4
bench cpu B=256 N=4096 weight=1
