# bf16 in, bf16 out.  PyTorch computes a bf16 GELU in f32 and rounds the
# result once to bf16; the judge compares at the bf16 tolerance (1e-2).
task gelu_bf16
level 1
category Activation
about "GELU (exact, erf form) on bfloat16 tensors: 0.5*x*(1+erf(x/sqrt(2))) (KernelBench L1 #26_GELU_, bf16 variant)"
input  x: bf16[B, D] ~ normal
output y: bf16[B, D]
y = gelu(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=16384 D=65536 weight=0.7; B=8192 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
