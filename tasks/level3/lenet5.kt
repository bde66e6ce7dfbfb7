# LeNet-5 on 32x32 single-channel images: conv 5x5 (C1 maps), ReLU, 2x2 max
# pool, conv 5x5 (C2 maps), ReLU, 2x2 max pool, flatten C2*5*5, three linear
# layers (ReLU between).  The classic sizes are C1=6 C2=16 F1=120 F2=84;
# check shapes vary them (the 32x32 input fixes the 5x5 final maps).
task lenet5
level 3
category Architecture
about "LeNet-5: conv-relu-pool twice, then Linear-ReLU-Linear-ReLU-Linear (KernelBench L3 #4_LeNet5)"
input  x: f32[N, 1, 32, 32] ~ normal
param  w1: f32[C1, 1, 5, 5] ~ kaiming
param  b1: f32[C1] ~ uniform(-0.1, 0.1)
param  w2: f32[C2, C1, 5, 5] ~ kaiming
param  b2: f32[C2] ~ uniform(-0.1, 0.1)
param  f1: f32[F1, C2*25] ~ kaiming
param  fb1: f32[F1] ~ uniform(-0.1, 0.1)
param  f2: f32[F2, F1] ~ kaiming
param  fb2: f32[F2] ~ uniform(-0.1, 0.1)
param  f3: f32[NC, F2] ~ kaiming
param  fb3: f32[NC] ~ uniform(-0.1, 0.1)
output y: f32[N, NC]
p1 = max_pool2d(relu(conv2d(x, w1, b1)), 2)
p2 = max_pool2d(relu(conv2d(p1, w2, b2)), 2)
h1 = relu(linear(reshape(p2, [N, -1]), f1, fb1))
h2 = relu(linear(h1, f2, fb2))
y = linear(h2, f3, fb3)
check N=1 C1=1 C2=1 F1=1 F2=1 NC=1; N=3 C1=6 C2=16 F1=120 F2=84 NC=10; N=2 C1=5 C2=7 F1=33 F2=13 NC=3
bench N=65536 C1=6 C2=16 F1=120 F2=84 NC=10 weight=0.5; N=16384 C1=32 C2=64 F1=512 F2=256 NC=1000 weight=0.5
bench cpu N=16 C1=6 C2=16 F1=120 F2=84 NC=10 weight=1
