# minGPT's Block (dropout off), pre-norm: x + attn(ln_1(x)), then
# + mlp(ln_2(.)) with a 4x expansion and NewGELU (the tanh approximation).
# attn is minGPT's causal self-attention (see mingpt_causal_attention).
task mini_gpt_block
level 3
category Architecture
about "GPT block: x + CausalSelfAttention(LN(x)), then + MLP(LN(.)) with tanh-GELU (KernelBench L3 #44_MiniGPTBlock)"
input  x: f32[B, T, NH*D] ~ normal
param  g1: f32[NH*D] ~ uniform(0.5, 1.5)
param  be1: f32[NH*D] ~ uniform(-0.1, 0.1)
param  w_attn: f32[3*NH*D, NH*D] ~ kaiming
param  b_attn: f32[3*NH*D] ~ uniform(-0.1, 0.1)
param  w_proj: f32[NH*D, NH*D] ~ kaiming
param  b_proj: f32[NH*D] ~ uniform(-0.1, 0.1)
param  g2: f32[NH*D] ~ uniform(0.5, 1.5)
param  be2: f32[NH*D] ~ uniform(-0.1, 0.1)
param  w_fc: f32[4*NH*D, NH*D] ~ kaiming
param  b_fc: f32[4*NH*D] ~ uniform(-0.1, 0.1)
param  w_mp: f32[NH*D, 4*NH*D] ~ kaiming
param  b_mp: f32[NH*D] ~ uniform(-0.1, 0.1)
output y: f32[B, T, NH*D]
qkv = linear(layer_norm(x, [NH*D], weight=g1, bias=be1), w_attn, b_attn)
q = permute(reshape(narrow(qkv, 2, 0, NH*D), [B, T, NH, D]), [0, 2, 1, 3])
k = permute(reshape(narrow(qkv, 2, NH*D, NH*D), [B, T, NH, D]), [0, 2, 1, 3])
v = permute(reshape(narrow(qkv, 2, 2*NH*D, NH*D), [B, T, NH, D]), [0, 2, 1, 3])
h = x + linear(reshape(permute(sdpa(q, k, v, causal=True), [0, 2, 1, 3]), [B, T, -1]), w_proj, b_proj)
m = gelu(linear(layer_norm(h, [NH*D], weight=g2, bias=be2), w_fc, b_fc), approximate="tanh")
y = h + linear(m, w_mp, b_mp)
check B=1 T=1 NH=1 D=1; B=2 T=5 NH=3 D=7; B=1 T=33 NH=2 D=64; B=3 T=17 NH=4 D=5
bench B=16 T=1024 NH=12 D=64 weight=0.5; B=4 T=2048 NH=16 D=64 weight=0.5
bench cpu B=1 T=64 NH=4 D=32 weight=1
