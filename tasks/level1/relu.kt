# Elementwise and memory-bound: 2 GiB read + 2 GiB written on the main bench shape.
task relu
level 1
category Activation
about "ReLU, elementwise (KernelBench L1 #19_ReLU)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = relu(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=8192 D=65536 weight=0.7; B=4096 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
