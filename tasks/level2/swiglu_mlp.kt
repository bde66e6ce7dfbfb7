# The LLaMA feed-forward block: w2(silu(w1 x) * w3 x), no biases.
task swiglu_mlp
level 2
category Fusion
about "SwiGLU MLP: linear(silu(linear(x, w1)) * linear(x, w3), w2)"
input  x: f32[T, D] ~ normal
param  w1: f32[H, D] ~ kaiming
param  w3: f32[H, D] ~ kaiming
param  w2: f32[D, H] ~ kaiming
output y: f32[T, D]
g = silu(linear(x, w1)) * linear(x, w3)
y = linear(g, w2)
check T=1 D=1 H=1; T=3 D=17 H=5; T=7 D=33 H=130; T=2 D=129 H=31
bench T=2048 D=2048 H=5632 weight=0.6; T=512 D=4096 H=11008 weight=0.4
bench cpu T=64 D=128 H=256 weight=1
