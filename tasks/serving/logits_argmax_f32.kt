# Greedy decoding's sampler: argmax over a vocabulary of V f32 logits per
# sequence; exact i64 indices.
# Bench shapes (estimated eager time, source):
#   B=256 V=128256: ~38 us, Llama-3 vocabulary, decode batch 256
#   B=1024 V=152064: ~178 us, Qwen2.5 vocabulary, decode batch 1024
#   B=64 V=129280: ~9 us, DeepSeek-V3 vocabulary, decode batch 64
task logits_argmax_f32
level 1
category Reduce
about "Greedy sampling: the index of the largest logit per sequence (first on ties), i64"
input  logits: f32[B, V] ~ normal
output idx: i64[B]
idx = argmax(logits, dim=-1)
check B=1 V=1; B=3 V=1000; B=2 V=4097; B=5 V=33
bench B=256 V=128256 weight=0.167; B=1024 V=152064 weight=0.791; B=64 V=129280 weight=0.042
bench cpu B=16 V=32000 weight=1
