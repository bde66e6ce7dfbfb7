# Column means: the reduction runs down dim 0 with a stride of D.
task mean_dim0
level 1
category Reduce
about "Mean over dim 0 of a [B, D] matrix"
input  x: f32[B, D] ~ normal
output y: f32[D]
y = mean(x, dim=0)
check B=1 D=1; B=1000 D=3; B=4097 D=17; B=31 D=2
bench B=81920 D=16384 weight=0.6; B=1310720 D=1024 weight=0.4
bench cpu B=4096 D=256 weight=1
