# SqueezeNet's Fire module: a 1x1 squeeze convolution to S channels and
# ReLU, then two expand convolutions of it (1x1 to E1 channels, 3x3 with
# padding 1 to E3 channels), each with ReLU, concatenated along channels.
task squeezenet_fire
level 3
category Architecture
about "SqueezeNet Fire module: squeeze 1x1-ReLU, expand 1x1 and 3x3 with ReLU, concatenated (KernelBench L3 #17_SqueezeNetFireModule)"
input  x: f32[N, CI, H, W] ~ normal
param  ws: f32[S, CI, 1, 1] ~ kaiming
param  bs: f32[S] ~ uniform(-0.1, 0.1)
param  w1: f32[E1, S, 1, 1] ~ kaiming
param  b1: f32[E1] ~ uniform(-0.1, 0.1)
param  w3: f32[E3, S, 3, 3] ~ kaiming
param  b3: f32[E3] ~ uniform(-0.1, 0.1)
output y: f32[N, E1+E3, H, W]
s = relu(conv2d(x, ws, bs))
y = cat(relu(conv2d(s, w1, b1)), relu(conv2d(s, w3, b3, padding=1)), dim=1)
check N=1 CI=1 S=1 E1=1 E3=1 H=1 W=1; N=2 CI=3 S=5 E1=7 E3=2 H=7 W=9; N=1 CI=4 S=3 E1=5 E3=6 H=17 W=13; N=3 CI=2 S=7 E1=3 E3=4 H=33 W=5
bench N=128 CI=256 S=32 E1=128 E3=128 H=56 W=56 weight=0.5; N=256 CI=512 S=64 E1=256 E3=256 H=28 W=28 weight=0.5
bench cpu N=2 CI=16 S=8 E1=16 E3=16 H=32 W=32 weight=1
