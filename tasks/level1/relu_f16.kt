# f16 in, f16 out: exact, so any rounding on the way fails.  Bench shapes
# move the same bytes as the f32 relu.
task relu_f16
level 1
category Activation
about "ReLU on float16 tensors, elementwise (KernelBench L1 #19_ReLU, f16 variant)"
input  x: f16[B, D] ~ normal
output y: f16[B, D]
y = relu(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=16384 D=65536 weight=0.7; B=8192 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
