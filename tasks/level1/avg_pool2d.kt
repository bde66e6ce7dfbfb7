# stride=None means the kernel size.
task avg_pool2d
level 1
category Pooling
about "Average pooling 2D, kernel 3, stride 3 (the default), no padding (KernelBench L1 #45_Average_Pooling_2D; bench sizes scaled)"
input  x: f32[N, C, H, W] ~ normal
output y: f32[N, C, H/3, W/3]
y = avg_pool2d(x, 3)
check N=1 C=1 H=3 W=3; N=2 C=3 H=7 W=11; N=3 C=5 H=17 W=30
bench N=64 C=64 H=512 W=512 weight=1
bench cpu N=4 C=16 H=128 W=128 weight=1
