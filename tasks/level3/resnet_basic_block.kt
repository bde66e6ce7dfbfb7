# A ResNet basic block with a projection shortcut, as KernelBench builds it
# (and calls it: BatchNorm in training mode, statistics over N, H, W; eps
# 1e-5): conv3x3-BN-ReLU-conv3x3-BN, plus conv1x1-BN of the input, ReLU.
# Convolutions have no bias (BatchNorm cancels one).
task resnet_basic_block
level 3
category Architecture
about "ResNet BasicBlock: relu(BN(conv3x3(relu(BN(conv3x3(x))))) + BN(conv1x1(x))) (KernelBench L3 #8_ResNetBasicBlock)"
input  x: f32[N, CI, H, W] ~ normal
param  w1: f32[CO, CI, 3, 3] ~ kaiming
param  g1: f32[CO] ~ uniform(0.5, 1.5)
param  be1: f32[CO] ~ uniform(-0.1, 0.1)
param  w2: f32[CO, CO, 3, 3] ~ kaiming
param  g2: f32[CO] ~ uniform(0.5, 1.5)
param  be2: f32[CO] ~ uniform(-0.1, 0.1)
param  wd: f32[CO, CI, 1, 1] ~ kaiming
param  gd: f32[CO] ~ uniform(0.5, 1.5)
param  bed: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, H, W]
h = relu(batch_norm(conv2d(x, w1, padding=1), weight=g1, bias=be1, training=True))
m = batch_norm(conv2d(h, w2, padding=1), weight=g2, bias=be2, training=True)
y = relu(m + batch_norm(conv2d(x, wd), weight=gd, bias=bed, training=True))
check N=2 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=7 W=9; N=1 CI=4 CO=3 H=17 W=13; N=3 CI=2 CO=7 H=33 W=5
bench N=64 CI=64 CO=64 H=112 W=112 weight=0.5; N=64 CI=128 CO=128 H=56 W=56 weight=0.5
bench cpu N=2 CI=8 CO=16 H=32 W=32 weight=1
