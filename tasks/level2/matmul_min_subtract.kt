# KernelBench L2 #68 uses the constant 2.0, which the O(0.6) outputs of a
# kaiming-initialized layer almost never reach, so the min is a no-op.  0.5
# clips about a fifth of them.
task matmul_min_subtract
level 2
category Fusion
about "Linear, min with 0.5, subtract 0.5 (after KernelBench L2 #68_Matmul_Min_Subtract)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, OUT]
h = linear(x, w, b)
y = minimum(h, 0.5) - 0.5
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
