# The GPT-2 / minGPT GELU. Elementwise, memory-bound on an H200.
task gelu_tanh
level 1
category Activation
about "GELU, tanh approximation: 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x**3))) (KernelBench L1 #88_MinGPTNewGelu)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = gelu(x, approximate="tanh")
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=8192 D=65536 weight=0.7; B=4096 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
