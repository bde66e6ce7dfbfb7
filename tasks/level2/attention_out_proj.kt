# One head of attention (scale 1/sqrt(64) for every shape) and the output
# projection.  Outputs are small (~0.05: averages of T values, projected),
# and f32 itself errs by ~2e-6, so atol is 1e-5.
task attention_out_proj
level 2
category Fusion
about "Non-causal attention softmax(q @ k^T * 0.125) @ v followed by an output projection with bias"
input  q: f32[B, S, D] ~ normal
input  k: f32[B, T, D] ~ normal
input  v: f32[B, T, D] ~ normal
param  wo: f32[E, D] ~ kaiming
param  bo: f32[E] ~ uniform(-0.1, 0.1)
output y: f32[B, S, E]
p = softmax(matmul(q, transpose(k, 1, 2)) * 0.125, dim=-1)
y = linear(matmul(p, v), wo, bo)
check B=1 S=1 T=1 D=1 E=1; B=2 S=3 T=17 D=5 E=7; B=3 S=33 T=31 D=64 E=13; B=1 S=7 T=129 D=13 E=2
bench B=64 S=2048 T=2048 D=64 E=1024 weight=0.6; B=16 S=4096 T=4096 D=128 E=512 weight=0.4
bench cpu B=2 S=128 T=128 D=64 E=64 weight=1
tol atol=1e-5 rtol=1e-4
