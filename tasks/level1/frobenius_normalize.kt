# x divided by its Frobenius norm, with norm() as one reduction.  Outputs
# are ~1/sqrt(numel), so atol is 1e-12 and the check is relative (1e-4).
task frobenius_normalize
level 1
category Normalization
about "Frobenius-norm normalization x / norm(x) over every element (KernelBench L1 #37_FrobeniusNorm_)"
input  x: f32[B, C, H, W] ~ normal
output y: f32[B, C, H, W]
y = x / norm(x)
check B=1 C=1 H=1 W=2; B=2 C=3 H=5 W=7; B=1 C=17 H=33 W=31; B=3 C=2 H=129 W=67
bench B=32 C=64 H=512 W=512 weight=0.6; B=64 C=64 H=512 W=256 weight=0.4
bench cpu B=4 C=16 H=64 W=64 weight=1
tol atol=1e-12 rtol=1e-4
