# F.normalize(x, p=2, dim=1): rows divided by their Euclidean norm (clamped
# at 1e-12).  Outputs are ~1/sqrt(D): atol 1e-9, relative check 1e-4.
task l2_normalize
level 1
category Normalization
about "L2 normalization of rows: normalize(x, p=2.0, dim=1) (KernelBench L1 #39_L2Norm_)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = normalize(x, p=2.0, dim=1)
check B=1 D=2; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=32768 D=16384 weight=0.6; B=4096 D=131072 weight=0.4
bench cpu B=256 D=4096 weight=1
tol atol=1e-9 rtol=1e-4
