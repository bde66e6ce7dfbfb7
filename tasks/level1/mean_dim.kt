task mean_dim
level 1
category Reduce
about "Mean over the last dim with keepdim=True (KernelBench L1 #48_Mean_reduction_over_a_dimension)"
input  x: f32[B, M, N] ~ normal
output y: f32[B, M, 1]
y = mean(x, dim=-1, keepdim=True)
check B=1 M=1 N=1; B=3 M=5 N=1000; B=2 M=17 N=4097; B=7 M=3 N=31
bench B=160 M=1024 N=8192 weight=0.7; B=20 M=64 N=1048576 weight=0.3
bench cpu B=16 M=64 N=1024 weight=1
