# Each row divided by the sum of its absolute values.  Outputs are ~1/D
# (~8e-5 at D=16384), so atol is 1e-12 and the check is relative.
task l1_norm
level 1
category Normalization
about "L1 normalization over dim 1: x / sum(abs(x), dim=1, keepdim=True) (KernelBench L1 #38_L1Norm_)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = x / sum(abs(x), dim=1, keepdim=True)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=32768 D=16384 weight=0.6; B=4096 D=131072 weight=0.4
bench cpu B=256 D=4096 weight=1
tol atol=1e-12 rtol=1e-4
