# Attention probabilities softmax(q @ k^T * 0.125): 0.125 = 1/sqrt(64), the
# head size of the first bench shape.  Rows of T probabilities are ~1/T, so
# atol is 1e-8 to keep the check relative (1e-4).
task attn_scores_softmax
level 2
category Fusion
about "Scaled attention scores and their softmax: softmax(q @ k^T * 0.125, dim=-1)"
input  q: f32[B, S, D] ~ normal
input  k: f32[B, T, D] ~ normal
output p: f32[B, S, T]
s = matmul(q, transpose(k, 1, 2)) * 0.125
p = softmax(s, dim=-1)
check B=1 S=1 D=1 T=1; B=2 S=3 D=5 T=17; B=3 S=33 D=64 T=31; B=1 S=7 D=13 T=129
bench B=64 S=2048 D=64 T=2048 weight=0.6; B=16 S=4096 D=128 T=4096 weight=0.4
bench cpu B=4 S=256 D=64 T=256 weight=1
tol atol=1e-8 rtol=1e-4
