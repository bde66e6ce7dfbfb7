# A linear layer over a batch of prompt tokens: x [M, K] times a weight
# [N, K], bf16 in and out with f32 accumulation.  Compute-bound.
# Bench shapes (estimated eager time, source):
#   M=8192 K=4096 N=6144: ~589 us, Llama-3-8B fused q/k/v projection (32 q + 2 x 8 kv heads of 128), 8192 prompt tokens
#   M=8192 K=4096 N=28672: ~2749 us, Llama-3-8B gate+up projection, 8192 prompt tokens
#   M=8192 K=14336 N=4096: ~1374 us, Llama-3-8B down projection, 8192 prompt tokens
#   M=4096 K=8192 N=57344: ~5498 us, Llama-3-70B gate+up projection, 4096 prompt tokens
#   M=4096 K=7168 N=36864: ~3092 us, DeepSeek-V3 dense-layer gate+up projection (FFN 18432 x 2), 4096 prompt tokens
task prefill_gemm_bf16
level 1
category MatrixMultiply
about "Prefill GEMM in bf16: y = x @ w^T over all prompt tokens"
input  x: bf16[M, K] ~ normal
param  w: bf16[N, K] ~ kaiming
output y: bf16[M, N]
y = linear(x, w)
check M=1 K=1 N=1; M=3 K=37 N=5; M=67 K=129 N=131; M=33 K=1000 N=7
bench M=8192 K=4096 N=6144 weight=0.044; M=8192 K=4096 N=28672 weight=0.207; M=8192 K=14336 N=4096 weight=0.103; M=4096 K=8192 N=57344 weight=0.413; M=4096 K=7168 N=36864 weight=0.233
bench cpu M=128 K=256 N=256 weight=1
