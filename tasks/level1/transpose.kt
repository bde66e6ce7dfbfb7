# Swap the last two dims of a batch of matrices and write them contiguous:
# pure data movement (a naive kernel makes either reads or writes strided).
task transpose
level 1
category SpatialOps
about "Batched transpose: y = x.permute(0, 2, 1), written contiguous"
input  x: f32[B, M, N] ~ normal
output y: f32[B, N, M]
y = permute(x, [0, 2, 1])
check B=1 M=1 N=1; B=3 M=17 N=5; B=2 M=33 N=1000; B=1 M=129 N=127
bench B=64 M=4096 N=2048 weight=0.6; B=16 M=8191 N=4099 weight=0.4
bench cpu B=4 M=512 N=512 weight=1
