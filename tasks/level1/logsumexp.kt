task logsumexp
level 1
category Reduce
about "log(sum(exp(x))) over the last dim, computed stably"
input  x: f32[B, N] ~ normal
output y: f32[B]
y = logsumexp(x, dim=-1)
check B=1 N=1; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=65536 N=16384 weight=0.6; B=5120 N=262144 weight=0.4
bench cpu B=256 N=4096 weight=1
