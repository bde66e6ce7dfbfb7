# Log-softmax over the middle dim of [B, M, N]: each reduction runs with a
# stride of N elements.
task log_softmax_dim1
level 1
category Normalization
about "Log-softmax over the middle dim of a 3-D tensor: log_softmax(x, dim=1)"
input  x: f32[B, M, N] ~ normal
output y: f32[B, M, N]
y = log_softmax(x, dim=1)
check B=1 M=1 N=1; B=3 M=17 N=5; B=2 M=1001 N=33; B=5 M=7 N=257
bench B=128 M=4096 N=2048 weight=0.6; B=32 M=65536 N=256 weight=0.4
bench cpu B=16 M=256 N=256 weight=1
