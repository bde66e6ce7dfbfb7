# Dropout on bfloat16 activations with a fixed seed (see dropout.kt): the
# uniforms are f32 whatever x's dtype, the kept elements are x / 0.9 rounded
# once to bf16, the dropped ones 0 (masked_fill).
task dropout_bf16
level 1
category Random
about "Dropout on bf16, p = 0.1, seed 20240607: y = masked_fill(x / 0.9, rand_like(x, seed=20240607) < 0.1, 0) (rand_like: Philox4x32-10, f32 uniforms)"
input  x: bf16[B, N] ~ normal
output y: bf16[B, N]
y = masked_fill(x / 0.9, less(rand_like(x, seed=20240607), 0.1), 0.0)
check B=1 N=1; B=3 N=1001; B=17 N=4097; B=5 N=31
bench B=16384 N=32768 weight=0.6; B=8191 N=65539 weight=0.4
bench cpu B=256 N=4099 weight=1
