# KernelBench's chain as written: after the sum over features every later
# reduction runs over a dim of size 1 and passes its value through, so y is
# the row sum of the linear layer (a candidate may fold it into one GEMV with
# the summed weight).  Row sums of OUT ~unit terms: rtol keeps them exact.
task matmul_sum_max_avgpool_lse_lse
level 2
category Fusion
about "Linear, sum over features (keepdim), then max, mean, logsumexp, logsumexp over that size-1 dim (KernelBench L2 #18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, 1]
s = sum(linear(x, w, b), dim=1, keepdim=True)
m = mean(max(s, dim=1, keepdim=True), dim=1, keepdim=True)
y = logsumexp(logsumexp(m, dim=1, keepdim=True), dim=1, keepdim=True)
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
