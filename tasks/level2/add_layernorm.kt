# Pre-norm residual step with two outputs: the updated residual stream h and
# its LayerNorm y, both written by the candidate.
task add_layernorm
level 2
category Fusion
about "Residual add then LayerNorm, both results returned: h = x + r; y = layer_norm(h)"
input  x: f32[N, D] ~ normal
input  r: f32[N, D] ~ normal
param  g: f32[D] ~ uniform(0.5, 1.5)
param  b: f32[D] ~ uniform(-0.1, 0.1)
output h: f32[N, D]
output y: f32[N, D]
h = x + r
y = layer_norm(h, [D], weight=g, bias=b)
check N=1 D=1; N=3 D=1000; N=17 D=4097; N=5 D=33
bench N=65536 D=4096 weight=0.6; N=32768 D=8192 weight=0.4
bench cpu N=256 D=4096 weight=1
