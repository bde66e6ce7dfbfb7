# KernelBench L2 #45 sums the sigmoids over features and then takes a
# logsumexp over the batch: one scalar, about OUT/2 plus the largest row's
# excess, which barely moves between draws.  Here the sigmoids feed a second
# linear layer and the logsumexp runs per row over its outputs: [N] values
# that differ row to row.
task gemm_sigmoid_linear_logsumexp
level 2
category Fusion
about "Linear, sigmoid, a second linear, logsumexp over its outputs per row (after KernelBench L2 #45_Gemm_Sigmoid_Sum_LogSumExp)"
input  x: f32[N, IN] ~ normal
param  w1: f32[H, IN] ~ kaiming
param  b1: f32[H] ~ uniform(-0.1, 0.1)
param  w2: f32[OUT, H] ~ kaiming
param  b2: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N]
h = sigmoid(linear(x, w1, b1))
y = logsumexp(linear(h, w2, b2), dim=1)
check N=1 IN=1 H=1 OUT=1; N=3 IN=37 H=5 OUT=7; N=17 IN=129 H=67 OUT=31; N=2 IN=1000 H=3 OUT=130
bench N=1024 IN=8192 H=8192 OUT=4096 weight=0.5; N=8192 IN=4096 H=4096 OUT=1024 weight=0.5
bench cpu N=128 IN=256 H=256 OUT=128 weight=1
