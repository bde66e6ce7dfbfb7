# KernelBench L2 #80 takes the max over features (keepdim), then subtracts
# the mean of that single column from itself: the output is identically 0.
# Here the mean is that of the linear output, so y = gelu(max - mean) per
# row, ~2 and varying.
task gemm_max_subtract_gelu
level 2
category Fusion
about "Linear, max over features minus the mean over features, GELU (after KernelBench L2 #80_Gemm_Max_Subtract_GELU)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, 1]
h = linear(x, w, b)
y = gelu(max(h, dim=1, keepdim=True) - mean(h, dim=1, keepdim=True))
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
