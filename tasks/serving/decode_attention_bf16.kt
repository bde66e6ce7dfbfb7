# One decode step of grouped-query attention: for each sequence b and kv
# head h, the G query heads that share it (one new token each) attend to all
# S cached keys and values (no mask: every cached token is in the past).
# q [B, HKV, G, D], K and V caches [B, HKV, S, D]; scale 1/sqrt(D).  Bound
# by reading the cache.
# Bench shapes (estimated eager time, source):
#   B=64 HKV=8 G=4 S=4096 D=128: ~307 us, Llama-3-8B (8 kv heads, 4 q heads each), batch 64, 4096 cached tokens
#   B=32 HKV=8 G=8 S=8192 D=128: ~307 us, Llama-3-70B (8 kv heads, 8 q heads each), batch 32, 8192 cached tokens
#   B=16 HKV=40 G=1 S=4096 D=128: ~384 us, Llama-2-13B (40 heads, no grouping), batch 16, 4096 cached tokens
#   B=4 HKV=8 G=8 S=32768 D=128: ~153 us, Llama-3-70B long context, batch 4, 32768 cached tokens
task decode_attention_bf16
level 1
category MatrixMultiply
about "Decode attention over a KV cache (grouped-query), bf16: softmax(q K^T / sqrt(D)) V for one new token per sequence"
input  q: bf16[B, HKV, G, D] ~ normal
input  k: bf16[B, HKV, S, D] ~ normal
input  v: bf16[B, HKV, S, D] ~ normal
output o: bf16[B, HKV, G, D]
o = sdpa(q, k, v)
check B=1 HKV=1 G=1 S=1 D=1; B=2 HKV=3 G=2 S=17 D=7; B=1 HKV=2 G=5 S=129 D=64; B=3 HKV=1 G=3 S=33 D=13
bench B=64 HKV=8 G=4 S=4096 D=128 weight=0.267; B=32 HKV=8 G=8 S=8192 D=128 weight=0.267; B=16 HKV=40 G=1 S=4096 D=128 weight=0.333; B=4 HKV=8 G=8 S=32768 D=128 weight=0.133
bench cpu B=2 HKV=2 G=4 S=1024 D=64 weight=1
