task min_dim
level 1
category Reduce
about "Min over dim 1, values only (KernelBench L1 #53_Min_reduction_over_a_dimension)"
input  x: f32[B, M, N] ~ normal
output y: f32[B, N]
y = min(x, dim=1)
check B=1 M=1 N=1; B=3 M=17 N=5; B=2 M=1000 N=33; B=5 M=4097 N=3
bench B=160 M=4096 N=2048 weight=0.6; B=80 M=256 N=65536 weight=0.4
bench cpu B=16 M=256 N=256 weight=1
