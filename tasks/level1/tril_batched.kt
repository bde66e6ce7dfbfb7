# Lower triangles of a batch of square matrices (torch.tril).
task tril_batched
level 1
category Index
about "Lower triangle of each matrix of a batch: tril(x) over [B, N, N]"
input  x: f32[B, N, N] ~ normal
output y: f32[B, N, N]
y = tril(x)
check B=1 N=2; B=3 N=5; B=2 N=67; B=1 N=1000
bench B=256 N=2048 weight=0.6; B=16 N=8192 weight=0.4
bench cpu B=8 N=512 weight=1
