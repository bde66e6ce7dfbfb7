# Output size floor((H + 2 - 3) / 2) + 1 = floor((H - 1) / 2) + 1.
task conv2d_strided_bias
level 1
category Convolution
about "2D convolution, 3x3 kernel, stride 2, padding 1, with bias: the ResNet downsampling convolution (torch.nn.Conv2d(CI, CO, 3, stride=2, padding=1))"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, (H-1)/2+1, (W-1)/2+1]
y = conv2d(x, w, b, stride=2, padding=1)
check N=1 CI=1 CO=1 H=1 W=2; N=2 CI=3 CO=5 H=7 W=8; N=3 CI=6 CO=4 H=17 W=31
bench N=32 CI=64 CO=128 H=256 W=256 weight=1
bench cpu N=2 CI=16 CO=32 H=64 W=64 weight=1
