# DenseNet's transition layer: BatchNorm (batch statistics, eps 1e-5,
# affine), ReLU, a 1x1 convolution without bias, 2x2 average pooling.
task densenet_transition
level 3
category Architecture
about "DenseNet transition layer: BN-ReLU-conv1x1-AvgPool2d(2) (KernelBench L3 #13_DenseNet121TransitionLayer)"
input  x: f32[N, CI, H, W] ~ normal
param  g: f32[CI] ~ uniform(0.5, 1.5)
param  beta: f32[CI] ~ uniform(-0.1, 0.1)
param  w: f32[CO, CI, 1, 1] ~ kaiming
output y: f32[N, CO, H/2, W/2]
y = avg_pool2d(conv2d(relu(batch_norm(x, weight=g, bias=beta, training=True)), w), 2)
check N=2 CI=1 CO=1 H=2 W=2; N=2 CI=3 CO=5 H=7 W=9; N=1 CI=4 CO=3 H=17 W=13; N=3 CI=2 CO=7 H=33 W=6
bench N=128 CI=256 CO=128 H=64 W=64 weight=0.5; N=256 CI=512 CO=256 H=32 W=32 weight=0.5
bench cpu N=2 CI=16 CO=8 H=32 W=32 weight=1
