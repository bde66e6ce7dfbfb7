# Row sums are OUT/2 plus ~+-10 that differ between rows: far above the
# rtol of 1e-4 (~0.4), so a constant OUT/2 fails.
task matmul_sigmoid_sum
level 2
category Fusion
about "Linear, sigmoid, sum over features with keepdim=True (KernelBench L2 #56_Matmul_Sigmoid_Sum)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, 1]
y = sum(sigmoid(linear(x, w, b)), dim=1, keepdim=True)
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
