# One decode step's linear layer for a batch of M sequences: x [M, K] (one
# token per sequence) times a weight [N, K] (nn.Linear layout), bf16 in and
# out with f32 accumulation.  Bound by reading the weight once.
# Bench shapes (estimated eager time, source):
#   M=64 K=8192 N=57344: ~271 us, Llama-3-70B gate+up projection (FFN 28672 x 2), decode batch 64
#   M=64 K=28672 N=8192: ~136 us, Llama-3-70B down projection, decode batch 64
#   M=64 K=8192 N=10240: ~49 us, Llama-3-70B fused q/k/v projection (64 q + 2 x 8 kv heads of 128), decode batch 64
#   M=64 K=8192 N=8192: ~39 us, Llama-3-70B attention output projection, decode batch 64
#   M=256 K=4096 N=28672: ~86 us, Llama-3-8B gate+up projection (FFN 14336 x 2), decode batch 256
#   M=128 K=5120 N=27648: ~83 us, Qwen2.5-14B gate+up projection (FFN 13824 x 2), decode batch 128
task decode_gemm_bf16
level 1
category MatrixMultiply
about "Decode-time skinny GEMM in bf16: y = x @ w^T with a few rows of activations and a large weight"
input  x: bf16[M, K] ~ normal
param  w: bf16[N, K] ~ kaiming
output y: bf16[M, N]
y = linear(x, w)
check M=1 K=1 N=1; M=3 K=37 N=5; M=7 K=129 N=67; M=2 K=1000 N=3
bench M=64 K=8192 N=57344 weight=0.408; M=64 K=28672 N=8192 weight=0.204; M=64 K=8192 N=10240 weight=0.073; M=64 K=8192 N=8192 weight=0.059; M=256 K=4096 N=28672 weight=0.13; M=128 K=5120 N=27648 weight=0.126
bench cpu M=8 K=256 N=512 weight=1
