# Causal self-attention core: query i attends keys 0..i.  A candidate should
# skip the masked half (the FLOPs and the roofline count only attended
# pairs); the eager baseline, like PyTorch's math path, computes every score
# and writes zeros for the masked probabilities.  Tolerance as in sdpa.
task sdpa_causal
level 1
category MatrixMultiply
about "Causal scaled dot-product attention sdpa(q, k, v, causal=True), scale 1/sqrt(D), over [B, H, S, D]"
input  q: f32[B, H, S, D] ~ normal
input  k: f32[B, H, S, D] ~ normal
input  v: f32[B, H, S, D] ~ normal
output o: f32[B, H, S, D]
o = sdpa(q, k, v, causal=True)
check B=1 H=1 S=1 D=1; B=2 H=3 S=17 D=7; B=1 H=2 S=65 D=64; B=1 H=1 S=130 D=13
bench B=8 H=16 S=2048 D=64 weight=0.6; B=8 H=32 S=1024 D=128 weight=0.4
bench cpu B=1 H=4 S=128 D=64 weight=1
tol atol=1e-5 rtol=1e-4
