# AvgPool1d(kernel 4) over the OUT = 4*P features, as a reshape and a mean.
task matmul_avgpool_gelu_scale_max
level 2
category Fusion
about "Linear, average-pool of width 4 over features, GELU, scale by 2.0, max over features (KernelBench L2 #98_Matmul_AvgPool_GELU_Scale_Max)"
input  x: f32[N, IN] ~ normal
param  w: f32[4*P, IN] ~ kaiming
param  b: f32[4*P] ~ uniform(-0.1, 0.1)
output y: f32[N]
h = linear(x, w, b)
y = max(gelu(mean(reshape(h, [N, P, 4]), dim=2)) * 2.0, dim=1)
check N=1 IN=1 P=1; N=3 IN=37 P=5; N=17 IN=129 P=67; N=2 IN=1000 P=3
bench N=1024 IN=8192 P=2048 weight=0.5; N=8192 IN=4096 P=1024 weight=0.5
bench cpu N=128 IN=256 P=64 weight=1
