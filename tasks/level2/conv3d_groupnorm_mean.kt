# The mean of a group-normalized tensor is nearly mean_c(gb): what depends on
# x comes from gw varying within a group and from the per-channel means of
# the normalized values, and shrinks with the volume.  atol 1e-7 keeps it
# visible (KernelBench's module is this near-constant).
task conv3d_groupnorm_mean
level 2
category Fusion
about "Conv3d 3x3x3, GroupNorm (affine), mean over all but the batch (KernelBench L2 #23_Conv3d_GroupNorm_Mean)"
input  x: f32[N, CI, D, H, W] ~ normal
param  w: f32[G*CG, CI, 3, 3, 3] ~ kaiming
param  b: f32[G*CG] ~ uniform(-0.1, 0.1)
param  gw: f32[G*CG] ~ uniform(0.5, 1.5)
param  gb: f32[G*CG] ~ uniform(-0.1, 0.1)
output y: f32[N]
y = mean(reshape(group_norm(conv3d(x, w, b), G, weight=gw, bias=gb), [N, -1]), dim=1)
check N=1 CI=1 G=1 CG=2 D=3 H=3 W=4; N=2 CI=3 G=2 CG=3 D=5 H=7 W=6; N=1 CI=2 G=3 CG=5 D=9 H=5 W=11; N=2 CI=4 G=4 CG=1 D=4 H=13 W=3
bench N=16 CI=16 G=8 CG=4 D=32 H=64 W=64 weight=0.5; N=8 CI=32 G=16 CG=4 D=16 H=128 W=128 weight=0.5
bench cpu N=1 CI=4 G=4 CG=2 D=8 H=16 W=16 weight=1
tol atol=1e-7 rtol=1e-4
