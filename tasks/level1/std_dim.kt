# Sample standard deviation (correction=1).  Check shapes keep N >= 2: with
# N=1 PyTorch returns NaN.
task std_dim
level 1
category Reduce
about "Standard deviation over the last dim with Bessel's correction (correction=1)"
input  x: f32[B, N] ~ normal(0.5, 2.0)
output y: f32[B]
y = std(x, dim=-1, correction=1)
check B=1 N=2; B=3 N=1000; B=17 N=4097; B=4 N=3
bench B=65536 N=16384 weight=0.6; B=4096 N=262144 weight=0.4
bench cpu B=256 N=4096 weight=1
