# nn.InstanceNorm2d (no affine) as one op: each (n, c) plane normalized over
# H, W with its biased variance, eps 1e-5.  Check shapes keep H*W >= 2.
task instance_norm_2d
level 1
category Normalization
about "InstanceNorm2d, no affine, eps 1e-5: instance_norm(x) (KernelBench L1 #34_InstanceNorm)"
input  x: f32[N, C, H, W] ~ normal
output y: f32[N, C, H, W]
y = instance_norm(x)
check N=1 C=1 H=1 W=2; N=2 C=3 H=5 W=7; N=3 C=17 H=33 W=31; N=1 C=2 H=129 W=67
bench N=64 C=64 H=512 W=512 weight=0.6; N=256 C=32 H=256 W=256 weight=0.4
bench cpu N=4 C=16 H=64 W=64 weight=1
