# The gated activation between a fused gate+up projection and the down
# projection: the first half of each row through SiLU times the second half.
# Bench shapes (estimated eager time, source):
#   T=8192 F=14336: ~201 us, Llama-3-8B FFN 14336, 8192 prefill tokens
#   T=4096 F=28672: ~201 us, Llama-3-70B FFN 28672, 4096 prefill tokens
#   T=16384 F=13824: ~388 us, Qwen2.5-14B FFN 13824, 16384 prefill tokens
#   T=256 F=14336: ~6 us, Llama-3-8B FFN 14336, decode batch 256
task silu_and_mul_bf16
level 2
category Activation
about "SwiGLU activation in bf16 (vLLM silu_and_mul): y = silu(x[:, :F]) * x[:, F:]"
input  x: bf16[T, 2*F] ~ normal
output y: bf16[T, F]
y = silu(narrow(x, 1, 0, F)) * narrow(x, 1, F, F)
check T=1 F=1; T=3 F=1000; T=17 F=4097; T=5 F=33
bench T=8192 F=14336 weight=0.253; T=4096 F=28672 weight=0.253; T=16384 F=13824 weight=0.487; T=256 F=14336 weight=0.007
bench cpu T=64 F=4096 weight=1
