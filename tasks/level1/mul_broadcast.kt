# Elementwise product with broadcasting on both sides:
# a [B, 1, N] * b [M, N] -> [B, M, N] (b is broadcast over B, a over M).
task mul_broadcast
level 1
category Math
about "Broadcasting multiply: a[B, 1, N] * b[M, N] -> [B, M, N]"
input  a: f32[B, 1, N] ~ normal
input  b: f32[M, N] ~ normal
output y: f32[B, M, N]
y = a * b
check B=1 N=1 M=1; B=3 N=5 M=17; B=2 N=1000 M=3; B=7 N=33 M=129
bench B=128 N=8192 M=1024 weight=0.6; B=2048 N=4099 M=127 weight=0.4
bench cpu B=16 N=256 M=256 weight=1
