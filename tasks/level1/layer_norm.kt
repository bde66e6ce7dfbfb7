# Transformer-style LayerNorm over the hidden dim with an affine weight and
# bias (biased variance, eps 1e-5, as torch.nn.LayerNorm).  KernelBench #40
# normalizes over the last three dims of a 4-D tensor instead.
task layer_norm
level 1
category Normalization
about "LayerNorm over the last dim with weight and bias, eps 1e-5 (cf. KernelBench L1 #40_LayerNorm)"
input  x: f32[B, S, D] ~ normal
param  w: f32[D] ~ uniform(0.5, 1.5)
param  b: f32[D] ~ uniform(-0.1, 0.1)
output y: f32[B, S, D]
y = layer_norm(x, [D], weight=w, bias=b, eps=1e-5)
check B=1 S=1 D=1; B=2 S=3 D=1000; B=3 S=7 D=4097; B=1 S=5 D=33
bench B=32 S=4096 D=4096 weight=0.6; B=32 S=2048 D=8192 weight=0.4
bench cpu B=4 S=256 D=1024 weight=1
