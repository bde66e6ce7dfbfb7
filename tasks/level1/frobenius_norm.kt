# x divided by the Frobenius norm of the whole tensor.  Outputs are
# ~1/sqrt(numel) (~4e-5 at the first bench shape), so atol is 1e-12 and the
# check is relative (1e-4).  The norm is one sum of 5e8 squares: a tree or
# blocked f32 sum is good to ~1e-6, a single serial f32 sum is not.
task frobenius_norm
level 1
category Normalization
about "Frobenius-norm normalization: x / sqrt(sum(x**2)) over every element (KernelBench L1 #37_FrobeniusNorm_)"
input  x: f32[B, C, H, W] ~ normal
output y: f32[B, C, H, W]
y = x / sqrt(sum(x * x))
check B=1 C=1 H=1 W=1; B=2 C=3 H=5 W=7; B=1 C=17 H=33 W=31; B=3 C=2 H=129 W=67
bench B=32 C=64 H=512 W=512 weight=0.6; B=32 C=64 H=512 W=256 weight=0.4
bench cpu B=4 C=16 H=64 W=64 weight=1
tol atol=1e-12 rtol=1e-4
