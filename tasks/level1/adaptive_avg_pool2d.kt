# Window o along a dim of size L covers floor(o*L/7) <= i < ceil((o+1)*L/7).
task adaptive_avg_pool2d
level 1
category Pooling
about "Adaptive average pooling 2D to 7x7 (torch.nn.AdaptiveAvgPool2d((7, 7)), as before a classifier head)"
input  x: f32[N, C, H, W] ~ normal
output y: f32[N, C, 7, 7]
y = adaptive_avg_pool2d(x, [7, 7])
check N=1 C=1 H=7 W=7; N=2 C=3 H=9 W=20; N=3 C=5 H=31 W=13
bench N=512 C=256 H=112 W=112 weight=1
bench cpu N=4 C=32 H=56 W=56 weight=1
