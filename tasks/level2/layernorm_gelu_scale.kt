# LayerNorm over the hidden dim, exact GELU, then a constant scale: a norm
# followed by an activation, which eager PyTorch runs as three kernels
# (layer_norm, gelu, mul) with two intermediate tensors.
task layernorm_gelu_scale
level 2
category Fusion
about "gelu(layer_norm(x)) * 2.0 over the hidden dim, with LayerNorm weight and bias and the exact (erf) GELU"
input  x: f32[N, D] ~ normal
param  g: f32[D] ~ uniform(0.5, 1.5)
param  b: f32[D] ~ uniform(-0.1, 0.1)
output y: f32[N, D]
h = layer_norm(x, [D], weight=g, bias=b)
y = gelu(h) * 2.0
check N=1 D=1; N=3 D=1000; N=17 D=4097; N=5 D=33
bench N=65536 D=4096 weight=0.6; N=32768 D=8192 weight=0.4
bench cpu N=256 D=4096 weight=1
