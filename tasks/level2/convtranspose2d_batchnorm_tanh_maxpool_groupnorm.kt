# BatchNorm2d in training mode (eps 1e-5, affine) cancels a conv bias: the
# transposed conv has none.  tanh, 2x2 max pool (2H x 2W -> H x W), GroupNorm
# of G groups of CG channels (eps 1e-5, affine).
task convtranspose2d_batchnorm_tanh_maxpool_groupnorm
level 2
category Fusion
about "ConvTranspose2d 3x3 stride 2, BatchNorm2d (batch statistics), tanh, MaxPool2d(2), GroupNorm (affine) (KernelBench L2 #11_ConvTranspose2d_BatchNorm_Tanh_MaxPool_GroupNorm)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, G*CG, 3, 3] ~ kaiming
param  g: f32[G*CG] ~ uniform(0.5, 1.5)
param  beta: f32[G*CG] ~ uniform(-0.1, 0.1)
param  gw: f32[G*CG] ~ uniform(0.5, 1.5)
param  gb: f32[G*CG] ~ uniform(-0.1, 0.1)
output y: f32[N, G*CG, H, W]
h = tanh(batch_norm(conv_transpose2d(x, w, stride=2, padding=1, output_padding=1), weight=g, bias=beta, training=True))
y = group_norm(max_pool2d(h, 2), G, weight=gw, bias=gb)
check N=2 CI=1 G=1 CG=2 H=1 W=2; N=2 CI=3 G=2 CG=3 H=4 W=5; N=1 CI=4 G=3 CG=5 H=9 W=7; N=3 CI=2 G=4 CG=1 H=17 W=3
bench N=64 CI=64 G=8 CG=4 H=128 W=128 weight=0.5; N=16 CI=128 G=16 CG=4 H=128 W=128 weight=0.5
bench cpu N=2 CI=8 G=2 CG=2 H=16 W=16 weight=1
