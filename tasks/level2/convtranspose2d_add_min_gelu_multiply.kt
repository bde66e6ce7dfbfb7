# gelu(min(conv_transpose + 0.5, 0.0)) * 2.0.
task convtranspose2d_add_min_gelu_multiply
level 2
category Fusion
about "ConvTranspose2d 3x3 stride 2, add 0.5, min with 0, GELU, multiply by 2 (KernelBench L2 #93_ConvTranspose2d_Add_Min_GELU_Multiply)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, CO, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, 2*H, 2*W]
y = gelu(minimum(conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1) + 0.5, 0.0)) * 2.0
check N=1 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=4 W=5; N=1 CI=4 CO=3 H=9 W=7; N=3 CI=2 CO=7 H=17 W=3
bench N=64 CI=64 CO=32 H=128 W=128 weight=0.5; N=16 CI=128 CO=64 H=128 W=128 weight=0.5
bench cpu N=2 CI=8 CO=4 H=16 W=16 weight=1
