# bf16 in, bf16 out, judged at the bf16 tolerance (1e-2).
task silu_bf16
level 1
category Activation
about "SiLU x*sigmoid(x) on bfloat16 tensors, computed in f32 and rounded once (KernelBench L1 #25_Swish, bf16 variant)"
input  x: bf16[B, D] ~ normal
output y: bf16[B, D]
y = silu(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=16384 D=65536 weight=0.7; B=8192 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
