# torch.nn.TransformerEncoderLayer in inference (no dropout), post-norm as
# its default: LayerNorm(x + MHA(x)), then LayerNorm(. + FFN(.)) with ReLU.
# NH heads of D, scale 0.125 = 1/sqrt(64) for every shape; the key
# projection has no bias (the softmax cancels it).
task transformer_encoder_layer
level 3
category Architecture
about "Transformer encoder layer (post-norm, ReLU FFN): y1 = LN(x + MHA(x)); y = LN(y1 + FFN(y1))"
input  x: f32[B, S, NH*D] ~ normal
param  wq: f32[NH*D, NH*D] ~ kaiming
param  bq: f32[NH*D] ~ uniform(-0.1, 0.1)
param  wk: f32[NH*D, NH*D] ~ kaiming
param  wv: f32[NH*D, NH*D] ~ kaiming
param  bv: f32[NH*D] ~ uniform(-0.1, 0.1)
param  wo: f32[NH*D, NH*D] ~ kaiming
param  bo: f32[NH*D] ~ uniform(-0.1, 0.1)
param  g1: f32[NH*D] ~ uniform(0.5, 1.5)
param  be1: f32[NH*D] ~ uniform(-0.1, 0.1)
param  w1: f32[F, NH*D] ~ kaiming
param  b1: f32[F] ~ uniform(-0.1, 0.1)
param  w2: f32[NH*D, F] ~ kaiming
param  b2: f32[NH*D] ~ uniform(-0.1, 0.1)
param  g2: f32[NH*D] ~ uniform(0.5, 1.5)
param  be2: f32[NH*D] ~ uniform(-0.1, 0.1)
output y: f32[B, S, NH*D]
q = permute(reshape(linear(x, wq, bq), [B, S, NH, D]), [0, 2, 1, 3])
k = permute(reshape(linear(x, wk), [B, S, NH, D]), [0, 2, 1, 3])
v = permute(reshape(linear(x, wv, bv), [B, S, NH, D]), [0, 2, 1, 3])
a = softmax(matmul(q, transpose(k, 2, 3)) * 0.125, dim=-1)
o = reshape(permute(matmul(a, v), [0, 2, 1, 3]), [B, S, -1])
y1 = layer_norm(x + linear(o, wo, bo), [NH*D], weight=g1, bias=be1)
y = layer_norm(y1 + linear(relu(linear(y1, w1, b1)), w2, b2), [NH*D], weight=g2, bias=be2)
check B=1 S=1 NH=1 D=2 F=3; B=2 S=5 NH=3 D=7 F=13; B=1 S=33 NH=2 D=64 F=100; B=3 S=17 NH=4 D=5 F=80
bench B=32 S=512 NH=12 D=64 F=3072 weight=0.5; B=128 S=128 NH=16 D=64 F=4096 weight=0.5
bench cpu B=1 S=64 NH=4 D=32 F=512 weight=1
