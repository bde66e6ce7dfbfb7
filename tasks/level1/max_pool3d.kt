# Out = floor((D + 2 - 6 - 1) / 2) + 1 per dim.
task max_pool3d
level 1
category Pooling
about "Max pooling 3D, kernel 3, stride 2, padding 1, dilation 3 (KernelBench L1 #43_Max_Pooling_3D; bench sizes scaled)"
input  x: f32[N, C, D, H, W] ~ normal
output y: f32[N, C, (D-5)/2+1, (H-5)/2+1, (W-5)/2+1]
y = max_pool3d(x, 3, stride=2, padding=1, dilation=3)
check N=1 C=1 D=5 H=5 W=5; N=2 C=3 D=7 H=8 W=9; N=1 C=2 D=13 H=6 W=17
bench N=16 C=32 D=128 H=128 W=128 weight=1
bench cpu N=2 C=8 D=32 H=32 W=32 weight=1
