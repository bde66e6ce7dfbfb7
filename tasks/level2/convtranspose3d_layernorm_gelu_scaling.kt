# KernelBench's nn.LayerNorm(out_channels) normalizes the last dim of the
# [N, C, D, H, W] output (it equals C there); here it is the last dim, 2W,
# with weight and bias of that size (eps 1e-5).  It cancels a per-channel
# conv bias (constant along W): the transposed conv has none.
task convtranspose3d_layernorm_gelu_scaling
level 2
category Fusion
about "ConvTranspose3d 3x3x3 stride 2, LayerNorm over the last dim (affine), GELU, scale by 2 (KernelBench L2 #34_ConvTranspose3d_LayerNorm_GELU_Scaling)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CI, CO, 3, 3, 3] ~ kaiming
param  g: f32[2*W] ~ uniform(0.5, 1.5)
param  beta: f32[2*W] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, 2*D, 2*H, 2*W]
h = layer_norm(conv_transpose3d(x, w, stride=2, padding=1, output_padding=1), [2*W], weight=g, bias=beta, eps=1e-5)
y = gelu(h) * 2.0
check N=1 CI=1 CO=1 D=1 H=1 W=1; N=2 CI=3 CO=5 D=3 H=4 W=5; N=1 CI=2 CO=3 D=5 H=3 W=7; N=2 CI=4 CO=2 D=2 H=9 W=3
bench N=32 CI=32 CO=32 D=16 H=32 W=32 weight=0.5; N=8 CI=64 CO=32 D=16 H=64 W=64 weight=0.5
bench cpu N=1 CI=4 CO=4 D=4 H=8 W=8 weight=1
