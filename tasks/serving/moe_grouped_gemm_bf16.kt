# The grouped GEMM of a mixture-of-experts layer with tokens already sorted
# by expert and padded to a capacity of C per expert: y[e] = x[e] @ w[e]
# for E experts, x [E, C, D], w [E, D, F] (column-major per expert, as
# vLLM's fused-MoE kernels read it), bf16 with f32 accumulation.
# Bench shapes (estimated eager time, source):
#   E=8 C=64 D=4096 F=28672: ~546 us, Mixtral-8x7B gate+up (FFN 14336 x 2), decode batch 256 with top-2 routing: 64 tokens per expert
#   E=8 C=2048 D=4096 F=28672: ~5498 us, Mixtral-8x7B gate+up, 8192 prompt tokens with top-2 routing: 2048 per expert
#   E=60 C=64 D=2048 F=2816: ~208 us, Qwen1.5-MoE-A2.7B gate+up (expert FFN 1408 x 2), 60 experts, 64 tokens per expert
#   E=64 C=16 D=7168 F=4096: DeepSeek-V3 gate+up (expert FFN 2048 x 2), 16 tokens per expert (decode batch 512, top-8 of 256 experts), the 64 experts one GPU holds under 4-way expert parallelism (all 256 would need ~91 GB in the judge with its fp64 reference)
task moe_grouped_gemm_bf16
level 1
category MatrixMultiply
about "MoE expert GEMM in bf16: each expert multiplies its own group of C routed tokens by its weight"
input  x: bf16[E, C, D] ~ normal
param  w: bf16[E, D, F] ~ normal(0, 0.03)
output y: bf16[E, C, F]
y = bmm(x, w)
check E=1 C=1 D=1 F=1; E=3 C=5 D=37 F=7; E=2 C=17 D=129 F=67; E=5 C=2 D=1000 F=3
bench E=8 C=64 D=4096 F=28672 weight=0.052; E=8 C=2048 D=4096 F=28672 weight=0.52; E=60 C=64 D=2048 F=2816 weight=0.02; E=64 C=16 D=7168 F=4096 weight=0.408
bench cpu E=4 C=32 D=256 F=256 weight=1
