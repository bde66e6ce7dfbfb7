# Softmax down the columns: a strided reduction over the first dim.  Values
# are ~1/B, so atol is 1e-9 and the check is relative.
task softmax_dim0
level 1
category Normalization
about "Softmax over dim 0 of a [B, D] matrix (column-wise)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = softmax(x, dim=0)
check B=1 D=1; B=1000 D=3; B=4097 D=17; B=31 D=2
bench B=16384 D=32768 weight=0.6; B=131072 D=4096 weight=0.4
bench cpu B=4096 D=64 weight=1
tol atol=1e-9 rtol=1e-4
