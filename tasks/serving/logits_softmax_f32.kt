# The probabilities a sampler draws from at temperature 0.7, over a
# vocabulary of V logits per sequence.  Most probabilities are ~1/V: atol
# 1e-10 keeps the check relative.
# Bench shapes (estimated eager time, source):
#   B=256 V=128256: ~75 us, Llama-3 vocabulary, decode batch 256
#   B=1024 V=152064: ~356 us, Qwen2.5 vocabulary, decode batch 1024
#   B=64 V=129280: ~19 us, DeepSeek-V3 vocabulary, decode batch 64
task logits_softmax_f32
level 1
category Normalization
about "Sampling distribution: softmax(logits / 0.7) over the vocabulary in f32"
input  logits: f32[B, V] ~ normal
output p: f32[B, V]
p = softmax(logits / 0.7, dim=-1)
check B=1 V=1; B=3 V=1000; B=2 V=4097; B=5 V=33
bench B=256 V=128256 weight=0.167; B=1024 V=152064 weight=0.791; B=64 V=129280 weight=0.042
bench cpu B=16 V=32000 weight=1
tol atol=1e-10 rtol=1e-4
