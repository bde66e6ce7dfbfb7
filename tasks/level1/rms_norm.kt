# RMSNorm as in LLaMA: x / sqrt(mean(x**2) + eps) * w over the hidden dim.
# KernelBench #36 normalizes over dim 1 of a 4-D tensor without a weight.
task rms_norm
level 1
category Normalization
about "RMSNorm over the last dim with a weight, eps 1e-6 (cf. KernelBench L1 #36_RMSNorm_)"
input  x: f32[B, S, D] ~ normal
param  w: f32[D] ~ uniform(0.5, 1.5)
output y: f32[B, S, D]
y = rms_norm(x, [D], weight=w, eps=1e-6)
check B=1 S=1 D=1; B=2 S=3 D=1000; B=3 S=7 D=4097; B=1 S=5 D=33
bench B=32 S=4096 D=4096 weight=0.6; B=32 S=2048 D=8192 weight=0.4
bench cpu B=4 S=256 D=1024 weight=1
