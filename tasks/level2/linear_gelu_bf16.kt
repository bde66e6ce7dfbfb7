# bf16 in and out, judged at the bf16 tolerance (1e-2).  Keeping the linear
# output in f32 for the GELU (a fused epilogue) or rounding it to bf16 first
# (two eager bf16 ops) both stay well inside it.
task linear_gelu_bf16
level 2
category Fusion
about "Linear with bias then GELU (erf), all in bfloat16 (f32 accumulation, bf16 result)"
input  x: bf16[N, IN] ~ normal
param  w: bf16[OUT, IN] ~ kaiming
param  b: bf16[OUT] ~ uniform(-0.1, 0.1)
output y: bf16[N, OUT]
y = gelu(linear(x, w, b))
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=8192 IN=8192 OUT=8192 weight=0.5; N=16384 IN=4096 OUT=16384 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
