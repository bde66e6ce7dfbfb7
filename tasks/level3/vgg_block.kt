# One VGG stage: two 3x3 convolutions (padding 1, with bias), each followed
# by ReLU, then a 2x2 max pool (stride 2, floor).
task vgg_block
level 3
category Architecture
about "VGG block: conv3x3-ReLU-conv3x3-ReLU-MaxPool2d(2) (a stage of KernelBench L3 #11_VGG16)"
input  x: f32[N, CI, H, W] ~ normal
param  w1: f32[CO, CI, 3, 3] ~ kaiming
param  b1: f32[CO] ~ uniform(-0.1, 0.1)
param  w2: f32[CO, CO, 3, 3] ~ kaiming
param  b2: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, H/2, W/2]
h = relu(conv2d(x, w1, b1, padding=1))
y = max_pool2d(relu(conv2d(h, w2, b2, padding=1)), 2)
check N=1 CI=1 CO=1 H=2 W=2; N=2 CI=3 CO=5 H=7 W=9; N=1 CI=4 CO=3 H=17 W=13; N=3 CI=2 CO=7 H=33 W=6
bench N=32 CI=64 CO=128 H=112 W=112 weight=0.5; N=16 CI=256 CO=256 H=56 W=56 weight=0.5
bench cpu N=2 CI=8 CO=16 H=32 W=32 weight=1
