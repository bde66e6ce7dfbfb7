# GroupNorm of G groups of CG channels (eps 1e-5, affine) after GELU.
task convtranspose2d_gelu_groupnorm
level 2
category Fusion
about "ConvTranspose2d 3x3 stride 2, GELU, GroupNorm (affine) (KernelBench L2 #19_ConvTranspose2d_GELU_GroupNorm)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, G*CG, 3, 3] ~ kaiming
param  b: f32[G*CG] ~ uniform(-0.1, 0.1)
param  gw: f32[G*CG] ~ uniform(0.5, 1.5)
param  gb: f32[G*CG] ~ uniform(-0.1, 0.1)
output y: f32[N, G*CG, 2*H, 2*W]
y = group_norm(gelu(conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)), G, weight=gw, bias=gb)
check N=1 CI=1 G=1 CG=2 H=1 W=2; N=2 CI=3 G=2 CG=3 H=4 W=5; N=1 CI=4 G=3 CG=5 H=9 W=7; N=3 CI=2 G=4 CG=1 H=17 W=3
bench N=64 CI=64 G=8 CG=4 H=128 W=128 weight=0.5; N=16 CI=128 G=16 CG=4 H=128 W=128 weight=0.5
bench cpu N=2 CI=8 G=2 CG=2 H=16 W=16 weight=1
