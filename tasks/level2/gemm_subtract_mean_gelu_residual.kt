# As KernelBench: the logsumexp runs over a single column and is the
# identity, and the residual adds the [N, 1] result to the input x [N, IN].
# The row means are ~0.6/sqrt(OUT) plus the mean bias, so the added term is
# small (~3e-3) but 30x the tolerance: returning x alone fails.
task gemm_subtract_mean_gelu_residual
level 2
category Fusion
about "Linear, subtract a vector, mean over features (keepdim), logsumexp over that one column, GELU, add the input (KernelBench L2 #51_Gemm_Subtract_GlobalAvgPool_LogSumExp_GELU_ResidualAdd)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
param  s: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, IN]
h = linear(x, w, b) - s
m = logsumexp(mean(h, dim=1, keepdim=True), dim=1, keepdim=True)
y = x + gelu(m)
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
