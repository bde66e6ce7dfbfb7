# The gate of a mixture-of-experts layer, computed in f32 as DeepSeek and
# Mixtral do: router logits over E experts and their softmax (the top-k
# selection that follows is not part of the task).  Probabilities near 1/E:
# atol 1e-7 keeps the check relative.
# Bench shapes (estimated eager time, source):
#   T=16384 D=7168 E=256: ~1203 us, DeepSeek-V3 router (256 experts, hidden 7168, f32 gate), 16384 tokens
#   T=8192 D=4096 E=8: ~38 us, Mixtral-8x7B router (8 experts), 8192 tokens
#   T=32768 D=2048 E=64: ~172 us, DeepSeek-V2-Lite / Qwen-MoE-sized router (64 experts, hidden 2048), 32768 tokens
task moe_router_f32
level 2
category Fusion
about "MoE router: expert probabilities softmax(x @ w_gate^T) in f32"
input  x: f32[T, D] ~ normal
param  w: f32[E, D] ~ kaiming
output p: f32[T, E]
p = softmax(linear(x, w), dim=-1)
check T=1 D=1 E=1; T=3 D=37 E=5; T=17 D=129 E=67; T=2 D=1000 E=8
bench T=16384 D=7168 E=256 weight=0.851; T=8192 D=4096 E=8 weight=0.027; T=32768 D=2048 E=64 weight=0.122
bench cpu T=256 D=256 E=16 weight=1
tol atol=1e-7 rtol=1e-4
