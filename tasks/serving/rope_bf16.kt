# RoPE on q [T, HQ, 2R] and k [T, HK, 2R] with per-token tables cos_t and sin_t
# [T, 1, R] (one row of the cache per token position, shared by the heads):
# out = cat(x1*cos - x2*sin, x2*cos + x1*sin) with x1, x2 the two halves of
# each head.  The tables are inputs here, drawn uniform(-1, 1).
# Bench shapes (estimated eager time, source):
#   T=32768 HQ=64 HK=8 R=64: ~345 us, Llama-3-70B (64 q, 8 kv heads of 128), 32768 prefill tokens
#   T=16384 HQ=32 HK=8 R=64: ~96 us, Llama-3-8B (32 q, 8 kv heads of 128), 16384 prefill tokens
#   T=16384 HQ=40 HK=40 R=64: ~192 us, Llama-2-13B (40 heads of 128), 16384 prefill tokens
#   T=256 HQ=32 HK=8 R=64: ~1 us, Llama-3-8B, decode batch 256
task rope_bf16
level 2
category Fusion
about "Rotary position embedding (rotate-half, as Llama) of q and k in bf16"
input  q: bf16[T, HQ, 2*R] ~ normal
input  k: bf16[T, HK, 2*R] ~ normal
input  cos_t: bf16[T, 1, R] ~ uniform(-1, 1)
input  sin_t: bf16[T, 1, R] ~ uniform(-1, 1)
output qo: bf16[T, HQ, 2*R]
output ko: bf16[T, HK, 2*R]
q1 = narrow(q, 2, 0, R)
q2 = narrow(q, 2, R, R)
k1 = narrow(k, 2, 0, R)
k2 = narrow(k, 2, R, R)
qo = cat(q1 * cos_t - q2 * sin_t, q2 * cos_t + q1 * sin_t, dim=2)
ko = cat(k1 * cos_t - k2 * sin_t, k2 * cos_t + k1 * sin_t, dim=2)
check T=1 HQ=1 HK=1 R=1; T=3 HQ=4 HK=2 R=5; T=17 HQ=5 HK=1 R=64; T=33 HQ=2 HK=2 R=3
bench T=32768 HQ=64 HK=8 R=64 weight=0.544; T=16384 HQ=32 HK=8 R=64 weight=0.151; T=16384 HQ=40 HK=40 R=64 weight=0.302; T=256 HQ=32 HK=8 R=64 weight=0.003
bench cpu T=128 HQ=8 HK=2 R=32 weight=1
