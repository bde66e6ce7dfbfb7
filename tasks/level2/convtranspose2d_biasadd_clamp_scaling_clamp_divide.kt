# Transposed conv (stride 2, padding 1, output_padding 1: 2H x 2W), then
# clamp(h + bias, 0, 1) * 2, clamp(0, 1), / 2 (a clamp to [0, 0.5]).
task convtranspose2d_biasadd_clamp_scaling_clamp_divide
level 2
category Fusion
about "ConvTranspose2d 3x3 stride 2, add a per-channel bias, clamp [0, 1], scale by 2, clamp [0, 1], divide by 2 (KernelBench L2 #2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, CO, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
param  bias: f32[CO, 1, 1] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, 2*H, 2*W]
h = clamp(conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1) + bias, min=0.0, max=1.0) * 2.0
y = clamp(h, min=0.0, max=1.0) / 2.0
check N=1 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=4 W=5; N=1 CI=4 CO=3 H=9 W=7; N=3 CI=2 CO=7 H=17 W=3
bench N=64 CI=64 CO=32 H=128 W=128 weight=0.5; N=16 CI=128 CO=64 H=128 W=128 weight=0.5
bench cpu N=2 CI=8 CO=4 H=16 W=16 weight=1
