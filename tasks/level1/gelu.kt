# Elementwise and memory-bound.  The tanh approximation errs by up to ~5e-4
# and fails the f32 tolerance.
task gelu
level 1
category Activation
about "GELU (exact, erf form): 0.5*x*(1+erf(x/sqrt(2))), elementwise (KernelBench L1 #26_GELU_)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = gelu(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=8192 D=65536 weight=0.7; B=4096 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
