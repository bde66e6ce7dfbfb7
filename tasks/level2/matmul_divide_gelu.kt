# Outputs are ~0.03, so atol is 1e-6 and the check is relative; TF32
# products (relative errors ~1e-3) fail it.
task matmul_divide_gelu
level 2
category Fusion
about "Linear, divide by 10.0, GELU (KernelBench L2 #86_Matmul_Divide_GELU)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, OUT]
y = gelu(linear(x, w, b) / 10.0)
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
tol atol=1e-6 rtol=1e-4
