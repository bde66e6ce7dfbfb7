# MaxPool1d(kernel 2) over the OUT = 2*P features, as a reshape and a max.
# Row sums of P maxima ~0.3*P: rtol keeps them exact to 1e-4.
task matmul_maxpool_sum_scale
level 2
category Fusion
about "Linear, max-pool of width 2 over features, sum (keepdim=False), scale by 0.5 (KernelBench L2 #55_Matmul_MaxPool_Sum_Scale)"
input  x: f32[N, IN] ~ normal
param  w: f32[2*P, IN] ~ kaiming
param  b: f32[2*P] ~ uniform(-0.1, 0.1)
output y: f32[N]
h = linear(x, w, b)
y = sum(max(reshape(h, [N, P, 2]), dim=2), dim=1) * 0.5
check N=1 IN=1 P=1; N=3 IN=37 P=5; N=17 IN=129 P=67; N=2 IN=1000 P=3
bench N=1024 IN=8192 P=4096 weight=0.5; N=8192 IN=4096 P=2048 weight=0.5
bench cpu N=128 IN=256 P=128 weight=1
