# Two very wide hidden ReLU layers: at a small batch the weights dominate the
# traffic (a skinny GEMM), at a larger one the FLOPs do.
task shallow_wide_mlp
level 3
category Architecture
about "Shallow wide MLP: Linear-ReLU-Linear-ReLU-Linear with two hidden layers of width H (KernelBench L3 #2_ShallowWideMLP)"
input  x: f32[N, IN] ~ normal
param  w1: f32[H, IN] ~ kaiming
param  b1: f32[H] ~ uniform(-0.1, 0.1)
param  w2: f32[H, H] ~ kaiming
param  b2: f32[H] ~ uniform(-0.1, 0.1)
param  w3: f32[OUT, H] ~ kaiming
param  b3: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, OUT]
h1 = relu(linear(x, w1, b1))
h2 = relu(linear(h1, w2, b2))
y = linear(h2, w3, b3)
check N=1 IN=1 H=1 OUT=1; N=3 IN=37 H=130 OUT=2; N=2 IN=1000 H=257 OUT=11; N=7 IN=33 H=2000 OUT=5
bench N=512 IN=4096 H=16384 OUT=1024 weight=0.5; N=128 IN=16384 H=16384 OUT=16384 weight=0.5
bench cpu N=8 IN=256 H=1024 OUT=64 weight=1
