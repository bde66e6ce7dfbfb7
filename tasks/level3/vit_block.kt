# A pre-norm vision transformer encoder block (ViT): LayerNorm, multi-head
# self-attention (NH heads of D, scale 0.125 = 1/sqrt(64) for every shape),
# residual; LayerNorm, MLP with exact GELU, residual.  The key projection has
# no bias (the softmax cancels it).  16 weights, 18 pointer arguments.
task vit_block
level 3
category Architecture
about "ViT encoder block: x + MHA(LN(x)), then + MLP(LN(.)) with GELU (the block of KernelBench L3 #28_VisionTransformer)"
input  x: f32[B, S, NH*D] ~ normal
param  g1: f32[NH*D] ~ uniform(0.5, 1.5)
param  be1: f32[NH*D] ~ uniform(-0.1, 0.1)
param  wq: f32[NH*D, NH*D] ~ kaiming
param  bq: f32[NH*D] ~ uniform(-0.1, 0.1)
param  wk: f32[NH*D, NH*D] ~ kaiming
param  wv: f32[NH*D, NH*D] ~ kaiming
param  bv: f32[NH*D] ~ uniform(-0.1, 0.1)
param  wo: f32[NH*D, NH*D] ~ kaiming
param  bo: f32[NH*D] ~ uniform(-0.1, 0.1)
param  g2: f32[NH*D] ~ uniform(0.5, 1.5)
param  be2: f32[NH*D] ~ uniform(-0.1, 0.1)
param  w1: f32[F, NH*D] ~ kaiming
param  b1: f32[F] ~ uniform(-0.1, 0.1)
param  w2: f32[NH*D, F] ~ kaiming
param  b2: f32[NH*D] ~ uniform(-0.1, 0.1)
output y: f32[B, S, NH*D]
n1 = layer_norm(x, [NH*D], weight=g1, bias=be1)
q = permute(reshape(linear(n1, wq, bq), [B, S, NH, D]), [0, 2, 1, 3])
k = permute(reshape(linear(n1, wk), [B, S, NH, D]), [0, 2, 1, 3])
v = permute(reshape(linear(n1, wv, bv), [B, S, NH, D]), [0, 2, 1, 3])
a = softmax(matmul(q, transpose(k, 2, 3)) * 0.125, dim=-1)
o = reshape(permute(matmul(a, v), [0, 2, 1, 3]), [B, S, -1])
h = x + linear(o, wo, bo)
n2 = layer_norm(h, [NH*D], weight=g2, bias=be2)
y = h + linear(gelu(linear(n2, w1, b1)), w2, b2)
check B=1 S=1 NH=1 D=2 F=3; B=2 S=5 NH=3 D=7 F=13; B=1 S=33 NH=2 D=64 F=100; B=3 S=17 NH=4 D=5 F=80
bench B=128 S=197 NH=12 D=64 F=3072 weight=0.5; B=32 S=257 NH=16 D=64 F=4096 weight=0.5
bench cpu B=1 S=65 NH=4 D=32 F=512 weight=1
