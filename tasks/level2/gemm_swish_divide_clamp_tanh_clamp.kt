task gemm_swish_divide_clamp_tanh_clamp
level 2
category Fusion
about "Linear, Swish, divide by 2.0, clamp to [-1, 1], tanh, clamp to [-1, 1] (KernelBench L2 #81_Gemm_Swish_Divide_Clamp_Tanh_Clamp)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, OUT]
h = silu(linear(x, w, b)) / 2.0
y = clamp(tanh(clamp(h, min=-1.0, max=1.0)), min=-1.0, max=1.0)
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
