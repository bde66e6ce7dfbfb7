# A Llama decoder layer (prefill, no KV cache), f32: RMSNorm, grouped-query
# causal attention with rotary embeddings, residual; RMSNorm, SwiGLU MLP,
# residual.  HKV key/value heads each shared by 4 query heads (Llama-3-8B's
# grouping; repeat_kv is the cat of 4 copies), head size D = 2R, the rotary
# tables cos_t and sin_t [T, R] given as inputs (drawn uniform(-1, 1)),
# rotate-half RoPE on q and k, scale 1/sqrt(D), no biases, eps 1e-5.
task llama_decoder_layer
level 3
category Architecture
about "Llama decoder layer: x + Attn(RMSNorm(x)) with GQA, RoPE, causal mask; then + SwiGLU(RMSNorm(.))"
input  x: f32[B, T, HKV*8*R] ~ normal
input  cos_t: f32[T, R] ~ uniform(-1, 1)
input  sin_t: f32[T, R] ~ uniform(-1, 1)
param  g1: f32[HKV*8*R] ~ uniform(0.5, 1.5)
param  wq: f32[HKV*8*R, HKV*8*R] ~ kaiming
param  wk: f32[HKV*2*R, HKV*8*R] ~ kaiming
param  wv: f32[HKV*2*R, HKV*8*R] ~ kaiming
param  wo: f32[HKV*8*R, HKV*8*R] ~ kaiming
param  g2: f32[HKV*8*R] ~ uniform(0.5, 1.5)
param  w1: f32[F, HKV*8*R] ~ kaiming
param  w3: f32[F, HKV*8*R] ~ kaiming
param  w2: f32[HKV*8*R, F] ~ kaiming
output y: f32[B, T, HKV*8*R]
n1 = rms_norm(x, [HKV*8*R], weight=g1, eps=1e-5)
q = permute(reshape(linear(n1, wq), [B, T, HKV, 4, 2*R]), [0, 2, 3, 1, 4])
k = permute(reshape(linear(n1, wk), [B, T, HKV, 1, 2*R]), [0, 2, 3, 1, 4])
v = permute(reshape(linear(n1, wv), [B, T, HKV, 1, 2*R]), [0, 2, 3, 1, 4])
q1 = narrow(q, 4, 0, R)
q2 = narrow(q, 4, R, R)
k1 = narrow(k, 4, 0, R)
k2 = narrow(k, 4, R, R)
qr = cat(q1 * cos_t - q2 * sin_t, q2 * cos_t + q1 * sin_t, dim=4)
kr = cat(k1 * cos_t - k2 * sin_t, k2 * cos_t + k1 * sin_t, dim=4)
o = sdpa(qr, cat(kr, kr, kr, kr, dim=2), cat(v, v, v, v, dim=2), causal=True)
h = x + linear(reshape(permute(o, [0, 3, 1, 2, 4]), [B, T, -1]), wo)
n2 = rms_norm(h, [HKV*8*R], weight=g2, eps=1e-5)
y = h + linear(silu(linear(n2, w1)) * linear(n2, w3), w2)
check B=1 T=1 HKV=1 R=1 F=1; B=2 T=5 HKV=2 R=3 F=7; B=1 T=33 HKV=1 R=8 F=13; B=1 T=17 HKV=3 R=2 F=5
bench B=1 T=1024 HKV=8 R=64 F=14336 weight=0.5; B=4 T=1024 HKV=4 R=64 F=5632 weight=0.5
bench cpu B=1 T=32 HKV=2 R=8 F=64 weight=1
