# conv * m, InstanceNorm3d (eps 1e-5, no affine), clamp(-1, 1), * m, max
# over channels.  The normalization cancels a per-channel conv bias (the
# conv has none) and the first multiply up to eps (m > 0); m still matters
# through the second one.
task conv3d_multiply_instancenorm_clamp_multiply_max
level 2
category Fusion
about "Conv3d 3x3x3, per-channel multiply, InstanceNorm3d, clamp to [-1, 1], multiply again, max over channels (KernelBench L2 #79_Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[CO, CI, 3, 3, 3] ~ kaiming
param  m: f32[CO, 1, 1, 1] ~ uniform(0.5, 1.5)
output y: f32[N, D-2, H-2, W-2]
h = clamp(instance_norm(conv3d(x, w) * m, eps=1e-5), min=-1.0, max=1.0)
y = max(h * m, dim=1)
check N=1 CI=1 CO=2 D=3 H=3 W=4; N=2 CI=3 CO=5 D=5 H=7 W=6; N=1 CI=2 CO=3 D=9 H=5 W=11; N=2 CI=4 CO=7 D=4 H=13 W=3
bench N=16 CI=16 CO=32 D=32 H=64 W=64 weight=0.5; N=8 CI=32 CO=64 D=16 H=128 W=128 weight=0.5
bench cpu N=1 CI=4 CO=8 D=8 H=16 W=16 weight=1
