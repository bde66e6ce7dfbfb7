# KernelBench's ReLU self-attention: minGPT's causal attention with the
# softmax replaced by a ReLU.  Masked scores are -inf before the ReLU, i.e.
# 0 after it, so att = tril(relu(q k^T / sqrt(D))); y = att v, heads
# re-assembled; no output projection.  The scale is 0.125 = 1/sqrt(64) for
# every shape.
task relu_self_attention
level 3
category Architecture
about "Causal ReLU self-attention: c_attn -> heads -> tril(relu(q k^T * scale)) v (KernelBench L3 #50_ReLUSelfAttention)"
input  x: f32[B, T, NH*D] ~ normal
param  w_attn: f32[3*NH*D, NH*D] ~ kaiming
param  b_attn: f32[3*NH*D] ~ uniform(-0.1, 0.1)
output y: f32[B, T, NH*D]
qkv = linear(x, w_attn, b_attn)
q = permute(reshape(narrow(qkv, 2, 0, NH*D), [B, T, NH, D]), [0, 2, 1, 3])
k = permute(reshape(narrow(qkv, 2, NH*D, NH*D), [B, T, NH, D]), [0, 2, 1, 3])
v = permute(reshape(narrow(qkv, 2, 2*NH*D, NH*D), [B, T, NH, D]), [0, 2, 1, 3])
att = tril(relu(matmul(q, transpose(k, 2, 3)) * 0.125))
y = reshape(permute(matmul(att, v), [0, 2, 1, 3]), [B, T, -1])
check B=1 T=1 NH=1 D=1; B=2 T=5 NH=3 D=7; B=1 T=33 NH=2 D=64; B=3 T=17 NH=4 D=5
bench B=16 T=1024 NH=12 D=64 weight=0.5; B=4 T=2048 NH=16 D=64 weight=0.5
bench cpu B=1 T=128 NH=4 D=32 weight=1
