# Index of the minimum along dim 1; on ties the first index (PyTorch).
task argmin_dim
level 1
category Reduce
about "Argmin over dim 1, int64 indices, first index on ties (KernelBench L1 #52_Argmin_over_a_dimension)"
input  x: f32[B, M, N] ~ normal
output y: i64[B, N]
y = argmin(x, dim=1)
check B=1 M=1 N=1; B=3 M=17 N=5; B=2 M=1000 N=33; B=5 M=4097 N=3
bench B=160 M=4096 N=2048 weight=0.6; B=64 M=256 N=65536 weight=0.4
bench cpu B=16 M=256 N=256 weight=1
