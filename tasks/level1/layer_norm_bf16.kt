# LayerNorm on bf16 activations with bf16 weight and bias; statistics in
# f32 as PyTorch does, one rounding of the result to bf16.
task layer_norm_bf16
level 1
category Normalization
about "LayerNorm over the last dim on bfloat16 tensors with weight and bias, eps 1e-5 (cf. KernelBench L1 #40_LayerNorm, bf16 variant)"
input  x: bf16[B, S, D] ~ normal
param  w: bf16[D] ~ uniform(0.5, 1.5)
param  b: bf16[D] ~ uniform(-0.1, 0.1)
output y: bf16[B, S, D]
y = layer_norm(x, [D], weight=w, bias=b, eps=1e-5)
check B=1 S=1 D=2; B=2 S=3 D=1000; B=3 S=7 D=4097; B=1 S=5 D=33
bench B=64 S=4096 D=4096 weight=0.6; B=64 S=2048 D=8192 weight=0.4
bench cpu B=4 S=256 D=1024 weight=1
