# Softmax over 8192 features gives values ~1e-4, below the default atol: a
# constant 1/OUT would pass.  atol is therefore 1e-9, which makes the check
# relative (1e-4); f32 logits are accurate to ~1e-6, f16 ones are not.
task gemm_gelu_softmax
level 2
category Fusion
about "Linear, GELU (erf), softmax over features (KernelBench L2 #99_Matmul_GELU_Softmax)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, OUT]
y = softmax(gelu(linear(x, w, b)), dim=1)
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
tol atol=1e-9 rtol=1e-4
