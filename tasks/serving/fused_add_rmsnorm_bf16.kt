# The pre-norm step of every decoder layer: the residual stream h = x + r
# (rounded to bf16, as stored) and its RMSNorm with a weight (eps 1e-5),
# both written.
# Bench shapes (estimated eager time, source):
#   T=16384 D=8192: ~307 us, Llama-3-70B hidden 8192, 16384 prefill tokens
#   T=32768 D=4096: ~307 us, Llama-3-8B hidden 4096, 32768 prefill tokens
#   T=16384 D=5120: ~192 us, Qwen2.5-14B hidden 5120, 16384 prefill tokens
#   T=256 D=7168: ~4 us, DeepSeek-V3 hidden 7168, decode batch 256
task fused_add_rmsnorm_bf16
level 2
category Normalization
about "Residual add then RMSNorm in bf16 (vLLM fused_add_rms_norm): h = x + r; y = rms_norm(h) * w, both returned"
input  x: bf16[T, D] ~ normal
input  r: bf16[T, D] ~ normal
param  w: bf16[D] ~ uniform(0.5, 1.5)
output h: bf16[T, D]
output y: bf16[T, D]
h = x + r
y = rms_norm(h, [D], weight=w, eps=1e-5)
check T=1 D=1; T=3 D=1000; T=17 D=4097; T=5 D=33
bench T=16384 D=8192 weight=0.379; T=32768 D=4096 weight=0.379; T=16384 D=5120 weight=0.237; T=256 D=7168 weight=0.005
bench cpu T=256 D=4096 weight=1
