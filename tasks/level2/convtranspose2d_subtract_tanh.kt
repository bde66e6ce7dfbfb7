# tanh(conv_transpose - bias[CO, 1, 1]); the transposed conv has no bias of
# its own (two per-channel biases in a row are one).
task convtranspose2d_subtract_tanh
level 2
category Fusion
about "ConvTranspose2d 3x3 stride 2, subtract a per-channel bias, tanh (KernelBench L2 #5_ConvTranspose2d_Subtract_Tanh)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CI, CO, 3, 3] ~ kaiming
param  bias: f32[CO, 1, 1] ~ uniform(-0.1, 0.1)
output y: f32[N, CO, 2*H, 2*W]
y = tanh(conv_transpose2d(x, w, stride=2, padding=1, output_padding=1) - bias)
check N=1 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=4 W=5; N=1 CI=4 CO=3 H=9 W=7; N=3 CI=2 CO=7 H=17 W=3
bench N=64 CI=64 CO=32 H=128 W=128 weight=0.5; N=16 CI=128 CO=64 H=128 W=128 weight=0.5
bench cpu N=2 CI=8 CO=4 H=16 W=16 weight=1
