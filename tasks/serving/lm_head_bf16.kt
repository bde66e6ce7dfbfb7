# The vocabulary projection of a decode step: the final hidden states
# [M, K] times the embedding-sized weight [V, K]: the largest single weight
# a decoder reads per step.
# Bench shapes (estimated eager time, source):
#   M=64 K=8192 V=128256: ~605 us, Llama-3-70B LM head (vocab 128256), decode batch 64
#   M=256 K=4096 V=128256: ~384 us, Llama-3-8B LM head (vocab 128256), decode batch 256
#   M=128 K=5120 V=152064: ~456 us, Qwen2.5-14B LM head (vocab 152064), decode batch 128
task lm_head_bf16
level 1
category MatrixMultiply
about "Decode LM head in bf16: logits = h @ W_vocab^T for one token per sequence"
input  h: bf16[M, K] ~ normal
param  w: bf16[V, K] ~ kaiming
output logits: bf16[M, V]
logits = linear(h, w)
check M=1 K=1 V=1; M=3 K=37 V=1001; M=5 K=129 V=67; M=2 K=1000 V=3
bench M=64 K=8192 V=128256 weight=0.419; M=256 K=4096 V=128256 weight=0.266; M=128 K=5120 V=152064 weight=0.315
bench cpu M=4 K=256 V=2048 weight=1
