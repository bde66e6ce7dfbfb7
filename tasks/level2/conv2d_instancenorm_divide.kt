# InstanceNorm2d (eps 1e-5, no affine) normalizes each (sample, channel)
# plane, which cancels a per-channel conv bias: the conv has none.  Check
# shapes keep at least 2 output positions per plane.
task conv2d_instancenorm_divide
level 2
category Fusion
about "Conv2d 3x3, InstanceNorm2d (no affine), divide by 2 (KernelBench L2 #17_Conv2d_InstanceNorm_Divide)"
input  x: f32[N, CI, H, W] ~ normal
param  w: f32[CO, CI, 3, 3] ~ kaiming
output y: f32[N, CO, H-2, W-2]
y = instance_norm(conv2d(x, w), eps=1e-5) / 2.0
check N=1 CI=1 CO=1 H=4 W=3; N=2 CI=3 CO=5 H=7 W=9; N=1 CI=4 CO=3 H=17 W=13; N=3 CI=2 CO=7 H=33 W=5
bench N=128 CI=32 CO=64 H=128 W=128 weight=0.5; N=16 CI=64 CO=128 H=256 W=256 weight=0.5
bench cpu N=2 CI=8 CO=16 H=32 W=32 weight=1
