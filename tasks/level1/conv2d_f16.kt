# The baseline uses tensor cores (cuDNN tensor-op math) with float accumulation.
task conv2d_f16
level 1
category Convolution
about "2D convolution in f16, 3x3 kernel, padding 1 (torch.nn.Conv2d(CI, CO, 3, padding=1).half(), float accumulation)"
input  x: f16[N, CI, H, W] ~ normal
param  w: f16[CO, CI, 3, 3] ~ kaiming
output y: f16[N, CO, H, W]
y = conv2d(x, w, padding=1)
check N=1 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=7 W=11; N=3 CI=16 CO=8 H=13 W=9
bench N=128 CI=64 CO=128 H=256 W=256 weight=1
bench cpu N=2 CI=16 CO=32 H=32 W=32 weight=1
