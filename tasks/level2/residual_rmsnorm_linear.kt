# A transformer block's entry: the residual stream h is returned as well,
# and its RMSNorm feeds the next projection (QKV or MLP up).
task residual_rmsnorm_linear
level 2
category Fusion
about "Residual add, RMSNorm (eps 1e-6, weight), then a linear projection without bias"
input  x: f32[T, D] ~ normal
input  r: f32[T, D] ~ normal
param  g: f32[D] ~ uniform(0.5, 1.5)
param  w: f32[OUT, D] ~ kaiming
output h: f32[T, D]
output y: f32[T, OUT]
h = x + r
y = linear(rms_norm(h, [D], weight=g, eps=1e-6), w)
check T=1 D=1 OUT=1; T=3 D=37 OUT=5; T=17 D=129 OUT=67; T=2 D=1000 OUT=3
bench T=8192 D=4096 OUT=4096 weight=0.5; T=2048 D=4096 OUT=12288 weight=0.5
bench cpu T=128 D=256 OUT=256 weight=1
