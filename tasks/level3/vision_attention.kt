# Multi-head self-attention over a sequence of E-dim tokens (nn.MultiheadAttention:
# q, k, v projections, NH heads of E/NH, softmax(q k^T * scale) v,
# output projection), then a residual and a LayerNorm.  The scale is 0.125 =
# 1/sqrt(64) for every shape (the bench shapes' head size).  The key
# projection has no bias: it adds q.bk to a whole row of scores, which the
# softmax cancels (the key third of nn.MultiheadAttention's in_proj_bias has
# no effect on the output).
task vision_attention
level 3
category Architecture
about "Multi-head self-attention, residual, LayerNorm: layer_norm(x + MHA(x, x, x)) (KernelBench L3 #31_VisionAttention)"
input  x: f32[B, S, NH*D] ~ normal
param  wq: f32[NH*D, NH*D] ~ kaiming
param  bq: f32[NH*D] ~ uniform(-0.1, 0.1)
param  wk: f32[NH*D, NH*D] ~ kaiming
param  wv: f32[NH*D, NH*D] ~ kaiming
param  bv: f32[NH*D] ~ uniform(-0.1, 0.1)
param  wo: f32[NH*D, NH*D] ~ kaiming
param  bo: f32[NH*D] ~ uniform(-0.1, 0.1)
param  g: f32[NH*D] ~ uniform(0.5, 1.5)
param  beta: f32[NH*D] ~ uniform(-0.1, 0.1)
output y: f32[B, S, NH*D]
q = permute(reshape(linear(x, wq, bq), [B, S, NH, D]), [0, 2, 1, 3])
k = permute(reshape(linear(x, wk), [B, S, NH, D]), [0, 2, 1, 3])
v = permute(reshape(linear(x, wv, bv), [B, S, NH, D]), [0, 2, 1, 3])
a = softmax(matmul(q, transpose(k, 2, 3)) * 0.125, dim=-1)
o = reshape(permute(matmul(a, v), [0, 2, 1, 3]), [B, S, -1])
y = layer_norm(linear(o, wo, bo) + x, [NH*D], weight=g, bias=beta)
check B=1 S=1 NH=1 D=2; B=2 S=5 NH=3 D=7; B=1 S=33 NH=2 D=64; B=3 S=17 NH=4 D=5
bench B=32 S=1024 NH=16 D=64 weight=0.6; B=4 S=4096 NH=8 D=64 weight=0.4
bench cpu B=1 S=128 NH=4 D=32 weight=1
