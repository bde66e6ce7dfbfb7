# f32 activations normalized and handed on in half precision, as before an
# f16 GEMM.  The output is f16: judged at the f16 tolerance.
task rmsnorm_cast_f16
level 2
category Fusion
about "RMSNorm with a weight (eps 1e-6) in f32, result cast to float16"
input  x: f32[N, D] ~ normal
param  w: f32[D] ~ uniform(0.5, 1.5)
output y: f16[N, D]
y = cast(rms_norm(x, [D], weight=w, eps=1e-6), f16)
check N=1 D=1; N=3 D=1000; N=17 D=4097; N=5 D=33
bench N=131072 D=4096 weight=0.6; N=65536 D=8192 weight=0.4
bench cpu N=256 D=4096 weight=1
