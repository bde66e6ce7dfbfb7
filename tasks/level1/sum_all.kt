# Sum of every element to one scalar.  The sum of 1e9 unit normals is
# ~3e4 in size and differs completely between draws; f32 partial sums of
# that size carry rounding of ~1e-3 each, and an atomic or blocked final sum
# of ~1e5 of them errs by up to ~0.3, so atol is 0.5.  A bf16/f16
# accumulation or a sampled estimate misses by far more.
task sum_all
level 1
category Reduce
about "Sum over all elements to a 0-D scalar"
input  x: f32[B, D] ~ normal
output y: f32[]
y = sum(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=32768 D=32768 weight=0.6; B=8192 D=131072 weight=0.4
bench cpu B=256 D=4096 weight=1
tol atol=0.5 rtol=1e-4
