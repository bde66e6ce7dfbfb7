# Out = floor((D + 2 - 3) / 2) + 1 per dim; border windows divide by 27.
task avg_pool3d
level 1
category Pooling
about "Average pooling 3D, kernel 3, stride 2, padding 1, count_include_pad (KernelBench L1 #46_Average_Pooling_3D; bench sizes scaled)"
input  x: f32[N, C, D, H, W] ~ normal
output y: f32[N, C, (D-1)/2+1, (H-1)/2+1, (W-1)/2+1]
y = avg_pool3d(x, 3, stride=2, padding=1)
check N=1 C=1 D=1 H=2 W=3; N=2 C=3 D=7 H=8 W=9; N=1 C=2 D=13 H=6 W=17
bench N=16 C=32 D=128 H=128 W=128 weight=1
bench cpu N=2 C=8 D=32 H=32 W=32 weight=1
