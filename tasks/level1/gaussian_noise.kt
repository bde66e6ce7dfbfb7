# Additive Gaussian noise from a fixed seed (as noise injection or a
# diffusion forward step with a given generator): randn_like's normals are
# specified by Philox4x32-10 and Box-Muller (docs/ops.md), four per Philox
# block (each pair's cosine and sine, as PyTorch's CUDA randn spends a block
# per four normals), exact up to the last bits of log, sqrt, cos and sin,
# which the f32 tolerance absorbs (|error| ~1e-7 after the 0.1 scale).  A
# wrong pairing of words, or normals from another generator, misses by ~0.1
# (examples/broken/cpu/gaussian_noise_two_per_block.c: the cosine-only
# layout with a block per two normals).
task gaussian_noise
level 1
category Random
about "Gaussian noise: y = x + 0.1 * randn_like(x, seed=31337) (randn_like: Philox4x32-10 block offset + i/4, pair p = (i/2)%2 on its words 2p and 2p+1, Box-Muller sqrt(-2 ln u1) times cos(2 pi u2) for even i, sin(2 pi u2) for odd i)"
input  x: f32[B, N] ~ normal
output y: f32[B, N]
y = x + 0.1 * randn_like(x, seed=31337)
check B=1 N=1; B=3 N=1001; B=17 N=4097; B=2 N=33
bench B=16384 N=16384 weight=0.6; B=4093 N=65537 weight=0.4
bench cpu B=256 N=4099 weight=1
