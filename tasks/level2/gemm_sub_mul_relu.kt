# KernelBench L2 #9 computes relu((linear(x) - 2.0) * 1.5) on x ~ U(0,1),
# where nearly every output is 0.  Here x is normal and the subtracted value
# 0.2, so about a third of the outputs are positive and carry signal.
task gemm_sub_mul_relu
level 2
category Fusion
about "Linear, subtract 0.2, multiply by 1.5, ReLU (after KernelBench L2 #9_Matmul_Subtract_Multiply_ReLU)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, OUT]
h = linear(x, w, b)
y = relu((h - 0.2) * 1.5)
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
