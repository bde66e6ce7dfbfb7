# CI and CO must be multiples of 8.
task conv2d_grouped
level 1
category Convolution
about "Grouped 2D convolution, 8 groups, 3x3 kernel, padding 1 (torch.nn.Conv2d(CI, CO, 3, padding=1, groups=8), as in ResNeXt)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI/8, 3, 3] ~ kaiming
output y: f32[N, CO, H, W]
y = conv2d(x, w, padding=1, groups=8)
check N=1 CI=8 CO=8 H=1 W=1; N=2 CI=16 CO=24 H=7 W=5; N=3 CI=24 CO=8 H=13 W=17
bench N=64 CI=128 CO=256 H=128 W=128 weight=1
bench cpu N=2 CI=32 CO=64 H=32 W=32 weight=1
