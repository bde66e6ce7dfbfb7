# Elementwise and memory-bound.
task leaky_relu
level 1
category Activation
about "LeakyReLU with negative_slope 0.01, elementwise (KernelBench L1 #20_LeakyReLU)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = leaky_relu(x, negative_slope=0.01)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=8192 D=65536 weight=0.7; B=4096 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
