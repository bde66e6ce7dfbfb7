# Dropout in training mode with a fixed seed, so that the mask is part of the
# specification: rand_like's values are defined bit for bit (Philox4x32-10
# keyed by the seed, docs/ops.md), so a candidate must reproduce the mask
# exactly; a wrong counter layout or word order drops other elements and
# misses by |x| / 0.9 there.  0.1 and 0.9 are f32 literals: an element is
# dropped when its uniform is below 0.1f, as torch compares an f32 tensor.
task dropout
level 1
category Random
about "Dropout, p = 0.1, seed 1234: y = 0 where rand_like(x, seed=1234) < 0.1, else x / 0.9 (rand_like: Philox4x32-10, counter offset + i/4, word i%4, (w >> 8) * 2^-24)"
input  x: f32[B, N] ~ normal
output y: f32[B, N]
y = where(less(rand_like(x, seed=1234), 0.1), 0.0, x / 0.9)
check B=1 N=1; B=3 N=1001; B=17 N=4097; B=2 N=33
bench B=16384 N=16384 weight=0.6; B=4093 N=65537 weight=0.4
bench cpu B=256 N=4099 weight=1
