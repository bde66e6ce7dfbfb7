# Causal self-attention over prompts of T tokens, q, k, v [B, H, T, D]
# (the kv heads already expanded to H), scale 1/sqrt(D), token i attends to
# tokens j <= i.
# Bench shapes (estimated eager time, source):
#   B=1 H=32 T=8192 D=128: ~785 us, Llama-3-8B, one 8192-token prompt, 32 heads
#   B=4 H=64 T=2048 D=128: ~393 us, Llama-3-70B, four 2048-token prompts, 64 heads
#   B=8 H=40 T=2048 D=128: ~491 us, Llama-2-13B, eight 2048-token prompts, 40 heads
task prefill_attention_bf16
level 1
category MatrixMultiply
about "Prefill causal attention in bf16: softmax(q k^T / sqrt(D) + causal mask) v over whole prompts"
input  q: bf16[B, H, T, D] ~ normal
input  k: bf16[B, H, T, D] ~ normal
input  v: bf16[B, H, T, D] ~ normal
output o: bf16[B, H, T, D]
o = sdpa(q, k, v, causal=True)
check B=1 H=1 T=1 D=1; B=2 H=3 T=17 D=7; B=1 H=2 T=129 D=64; B=3 H=1 T=33 D=13
bench B=1 H=32 T=8192 D=128 weight=0.471; B=4 H=64 T=2048 D=128 weight=0.235; B=8 H=40 T=2048 D=128 weight=0.294
bench cpu B=1 H=2 T=256 D=64 weight=1
