# Out = floor((H + 2 - 3 - 1) / 2) + 1 per dim.
task max_pool2d
level 1
category Pooling
about "Max pooling 2D, kernel 2, stride 2, padding 1, dilation 3 (KernelBench L1 #42_Max_Pooling_2D; bench sizes scaled)"
input  x: f32[N, C, H, W] ~ normal
output y: f32[N, C, (H-2)/2+1, (W-2)/2+1]
y = max_pool2d(x, 2, stride=2, padding=1, dilation=3)
check N=1 C=1 H=3 W=3; N=2 C=3 H=7 W=11; N=3 C=5 H=17 W=6
bench N=64 C=64 H=512 W=512 weight=1
bench cpu N=4 C=16 H=128 W=128 weight=1
