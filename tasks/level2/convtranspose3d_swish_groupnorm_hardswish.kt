# x * sigmoid(x), GroupNorm of G groups of CG channels (eps 1e-5, affine), HardSwish.
task convtranspose3d_swish_groupnorm_hardswish
level 2
category Fusion
about "ConvTranspose3d 3x3x3 stride 2, Swish, GroupNorm (affine), HardSwish (KernelBench L2 #60_ConvTranspose3d_Swish_GroupNorm_HardSwish)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CI, G*CG, 3, 3, 3] ~ kaiming
param  b: f32[G*CG] ~ uniform(-0.1, 0.1)
param  gw: f32[G*CG] ~ uniform(0.5, 1.5)
param  gb: f32[G*CG] ~ uniform(-0.1, 0.1)
output y: f32[N, G*CG, 2*D, 2*H, 2*W]
h = silu(conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1))
y = hardswish(group_norm(h, G, weight=gw, bias=gb))
check N=1 CI=1 G=1 CG=2 D=1 H=1 W=1; N=2 CI=3 G=2 CG=3 D=3 H=4 W=5; N=1 CI=2 G=3 CG=5 D=5 H=3 W=7; N=2 CI=4 G=4 CG=1 D=2 H=9 W=3
bench N=32 CI=32 G=8 CG=4 D=16 H=32 W=32 weight=0.5; N=8 CI=64 G=8 CG=4 D=16 H=64 W=64 weight=0.5
bench cpu N=1 CI=4 G=2 CG=2 D=4 H=8 W=8 weight=1
