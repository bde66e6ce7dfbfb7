# Row sums of OUT outputs of size ~0.6: ~0.6*sqrt(OUT) and of either
# sign.  Summing OUT f32 products in a different order errs by ~1e-4 near
# zero at OUT=8192, so atol is 1e-3.
task gemm_divide_sum_scaling
level 2
category Fusion
about "Linear without bias, divide by 2, sum over features (keepdim), multiply by 1.5 (KernelBench L2 #14_Gemm_Divide_Sum_Scaling)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
output y: f32[N, 1]
y = sum(linear(x, w) / 2.0, dim=1, keepdim=True) * 1.5
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
tol atol=1e-3 rtol=1e-4
