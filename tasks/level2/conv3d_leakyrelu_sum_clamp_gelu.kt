# leaky_relu(conv, 0.2) + t[CO, 1, 1, 1], clamp(-1, 1), exact GELU.
task conv3d_leakyrelu_sum_clamp_gelu
level 2
category Fusion
about "Conv3d 3x3x3, LeakyReLU(0.2), add a per-channel tensor, clamp to [-1, 1], GELU (KernelBench L2 #90_Conv3d_LeakyReLU_Sum_Clamp_GELU)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CO, CI, 3, 3, 3] ~ kaiming
param  b: f32[CO] ~ uniform(-0.1, 0.1)
param  t: f32[CO, 1, 1, 1] ~ normal(0, 0.5)
output y: f32[N, CO, D-2, H-2, W-2]
y = gelu(clamp(leaky_relu(conv3d(x, w, b), negative_slope=0.2) + t, min=-1.0, max=1.0))
check N=1 CI=1 CO=1 D=3 H=3 W=3; N=2 CI=3 CO=5 D=5 H=7 W=6; N=1 CI=2 CO=3 D=9 H=5 W=11; N=2 CI=4 CO=2 D=4 H=13 W=3
bench N=16 CI=16 CO=32 D=32 H=64 W=64 weight=0.5; N=8 CI=32 CO=64 D=16 H=128 W=128 weight=0.5
bench cpu N=1 CI=4 CO=8 D=8 H=16 W=16 weight=1
