# Elementwise and memory-bound.
task selu
level 1
category Activation
about "SELU: scale*(max(0,x)+min(0,alpha*(exp(x)-1))), scale 1.0507009873554805, alpha 1.6732632423543772 (KernelBench L1 #27_SELU_)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = selu(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=8192 D=65536 weight=0.7; B=4096 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
