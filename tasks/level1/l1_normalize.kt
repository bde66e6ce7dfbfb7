# F.normalize(x, p=1, dim=1): rows divided by the sum of their absolute
# values.  Outputs are ~1/D: atol 1e-12, relative check 1e-4.
task l1_normalize
level 1
category Normalization
about "L1 normalization of rows: normalize(x, p=1.0, dim=1) (KernelBench L1 #38_L1Norm_)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = normalize(x, p=1.0, dim=1)
check B=1 D=2; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=32768 D=16384 weight=0.6; B=4096 D=131072 weight=0.4
bench cpu B=256 D=4096 weight=1
tol atol=1e-12 rtol=1e-4
