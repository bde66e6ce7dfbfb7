# Eight hidden ReLU layers of width H and a linear output layer: nine
# weights and nine biases, 20 pointer arguments in all.  With nn.Linear's
# init each ReLU layer shrinks the part of the signal that comes from x by
# about sqrt(6), so the output is mostly the biases' doing and x moves it by
# ~1e-3; atol 1e-5 keeps a candidate that drops x (or a layer) failing.
task deep_narrow_mlp
level 3
category Architecture
about "Deep narrow MLP: eight Linear-ReLU layers of width H, then a Linear (KernelBench L3 #3_DeepNarrowMLP)"
input  x: f32[N, IN] ~ normal
param  w1: f32[H, IN] ~ kaiming
param  b1: f32[H] ~ uniform(-0.1, 0.1)
param  w2: f32[H, H] ~ kaiming
param  b2: f32[H] ~ uniform(-0.1, 0.1)
param  w3: f32[H, H] ~ kaiming
param  b3: f32[H] ~ uniform(-0.1, 0.1)
param  w4: f32[H, H] ~ kaiming
param  b4: f32[H] ~ uniform(-0.1, 0.1)
param  w5: f32[H, H] ~ kaiming
param  b5: f32[H] ~ uniform(-0.1, 0.1)
param  w6: f32[H, H] ~ kaiming
param  b6: f32[H] ~ uniform(-0.1, 0.1)
param  w7: f32[H, H] ~ kaiming
param  b7: f32[H] ~ uniform(-0.1, 0.1)
param  w8: f32[H, H] ~ kaiming
param  b8: f32[H] ~ uniform(-0.1, 0.1)
param  w9: f32[OUT, H] ~ kaiming
param  b9: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, OUT]
h1 = relu(linear(x, w1, b1))
h2 = relu(linear(h1, w2, b2))
h3 = relu(linear(h2, w3, b3))
h4 = relu(linear(h3, w4, b4))
h5 = relu(linear(h4, w5, b5))
h6 = relu(linear(h5, w6, b6))
h7 = relu(linear(h6, w7, b7))
h8 = relu(linear(h7, w8, b8))
y = linear(h8, w9, b9)
check N=1 IN=1 H=1 OUT=1; N=3 IN=37 H=5 OUT=2; N=17 IN=129 H=50 OUT=10; N=2 IN=1000 H=33 OUT=7
bench N=65536 IN=1024 H=256 OUT=64 weight=0.5; N=262144 IN=256 H=128 OUT=16 weight=0.5
bench cpu N=256 IN=256 H=64 OUT=16 weight=1
tol atol=1e-5 rtol=1e-4
