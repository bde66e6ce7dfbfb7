# Elementwise and memory-bound.
task hardtanh
level 1
category Activation
about "HardTanh: x clamped to [-1, 1], elementwise (KernelBench L1 #32_HardTanh)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = hardtanh(x, min_val=-1.0, max_val=1.0)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=8192 D=65536 weight=0.7; B=4096 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
