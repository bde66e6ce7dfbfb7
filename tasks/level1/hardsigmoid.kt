# Inputs of std 3 reach both flat parts (|x| >= 3) and the linear part.
task hardsigmoid
level 1
category Activation
about "HardSigmoid: clamp(x/6 + 1/2, 0, 1), elementwise (KernelBench L1 #28_HardSigmoid)"
input  x: f32[B, D] ~ normal(0.0, 3.0)
output y: f32[B, D]
y = hardsigmoid(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=8192 D=65536 weight=0.7; B=4096 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
