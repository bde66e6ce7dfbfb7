# minGPT's CausalSelfAttention (dropout off): one linear layer makes q, k and
# v (split along the features with narrow), NH heads of D, causal attention
# with scale 1/sqrt(D), heads re-assembled, output projection.  sdpa with
# causal=True is the masked softmax(q k^T / sqrt(D)) v.
task mingpt_causal_attention
level 3
category Architecture
about "Causal self-attention: c_attn -> q, k, v heads -> masked softmax(q k^T / sqrt(D)) v -> c_proj (KernelBench L3 #43_MinGPTCausalAttention)"
input  x: f32[B, T, NH*D] ~ normal
param  w_attn: f32[3*NH*D, NH*D] ~ kaiming
param  b_attn: f32[3*NH*D] ~ uniform(-0.1, 0.1)
param  w_proj: f32[NH*D, NH*D] ~ kaiming
param  b_proj: f32[NH*D] ~ uniform(-0.1, 0.1)
output y: f32[B, T, NH*D]
qkv = linear(x, w_attn, b_attn)
q = permute(reshape(narrow(qkv, 2, 0, NH*D), [B, T, NH, D]), [0, 2, 1, 3])
k = permute(reshape(narrow(qkv, 2, NH*D, NH*D), [B, T, NH, D]), [0, 2, 1, 3])
v = permute(reshape(narrow(qkv, 2, 2*NH*D, NH*D), [B, T, NH, D]), [0, 2, 1, 3])
o = reshape(permute(sdpa(q, k, v, causal=True), [0, 2, 1, 3]), [B, T, -1])
y = linear(o, w_proj, b_proj)
check B=1 T=1 NH=1 D=1; B=2 T=5 NH=3 D=7; B=1 T=33 NH=2 D=64; B=3 T=17 NH=4 D=5
bench B=32 T=1024 NH=12 D=64 weight=0.5; B=8 T=2048 NH=16 D=64 weight=0.5
bench cpu B=1 T=128 NH=4 D=32 weight=1
