# Concatenation of two matrices along the columns (torch.cat((a, b), 1)).
task concat_dim1
level 1
category Index
about "Concatenation along dim 1: cat(a, b, dim=1) of [B, N] and [B, M]"
input  a: f32[B, N] ~ normal
input  b: f32[B, M] ~ normal
output y: f32[B, N+M]
y = cat(a, b, dim=1)
check B=1 N=1 M=1; B=3 N=5 M=7; B=17 N=1000 M=33; B=2 N=4097 M=3
bench B=32768 N=16384 M=8192 weight=0.6; B=4096 N=65536 M=65536 weight=0.4
bench cpu B=256 N=2048 M=1024 weight=1
