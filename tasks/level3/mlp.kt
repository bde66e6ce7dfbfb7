# A three-layer perceptron: two hidden ReLU layers and a linear output layer,
# nn.Linear's default init (kaiming) for every weight.
task mlp
level 3
category Architecture
about "MLP: Linear-ReLU-Linear-ReLU-Linear (KernelBench L3 #1_MLP)"
input  x: f32[N, IN] ~ normal
param  w1: f32[H1, IN] ~ kaiming
param  b1: f32[H1] ~ uniform(-0.1, 0.1)
param  w2: f32[H2, H1] ~ kaiming
param  b2: f32[H2] ~ uniform(-0.1, 0.1)
param  w3: f32[OUT, H2] ~ kaiming
param  b3: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, OUT]
h1 = relu(linear(x, w1, b1))
h2 = relu(linear(h1, w2, b2))
y = linear(h2, w3, b3)
check N=1 IN=1 H1=1 H2=1 OUT=1; N=3 IN=37 H1=5 H2=7 OUT=2; N=17 IN=129 H1=67 H2=33 OUT=13; N=2 IN=1000 H1=400 H2=800 OUT=500
bench N=2048 IN=8192 H1=8192 H2=4096 OUT=1024 weight=0.5; N=8192 IN=2048 H1=4096 H2=2048 OUT=512 weight=0.5
bench cpu N=64 IN=256 H1=256 H2=128 OUT=64 weight=1
