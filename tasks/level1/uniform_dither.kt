# Additive uniform noise (dither) from a seed and a nonzero counter offset,
# as a second draw of one generator would use: every uniform enters the
# output, so a candidate must reproduce rand_like's values themselves, not
# only a threshold test.  The noise (amplitude 0.01) is 100 x the tolerance.
task uniform_dither
level 1
category Random
about "Uniform dither: y = x + (rand_like(x, seed=7, offset=1000003) - 0.5) * 0.02 (rand_like: Philox4x32-10, counter offset + i/4, word i%4, (w >> 8) * 2^-24)"
input  x: f32[B, N] ~ normal
output y: f32[B, N]
y = x + (rand_like(x, seed=7, offset=1000003) - 0.5) * 0.02
check B=1 N=1; B=3 N=1001; B=17 N=4097; B=2 N=33
bench B=16384 N=16384 weight=0.6; B=4093 N=65537 weight=0.4
bench cpu B=256 N=4099 weight=1
