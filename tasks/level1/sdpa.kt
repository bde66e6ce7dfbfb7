# Non-causal scaled dot-product attention written out: scores, softmax over
# the keys, weighted sum of the values.  The scale 0.125 = 1/sqrt(64) for
# every shape.  Outputs are averages of ~T values (~0.05) whose terms cancel,
# so f32 itself errs by ~2e-6: atol is 1e-5, well below the outputs; TF32
# scores (errors ~5e-3) fail it.
task sdpa
level 1
category MatrixMultiply
about "Scaled dot-product attention, non-causal: softmax(q @ k^T * 0.125) @ v over [B, H, S, D]"
input  q: f32[B, H, S, D] ~ normal
input  k: f32[B, H, T, D] ~ normal
input  v: f32[B, H, T, D] ~ normal
output o: f32[B, H, S, D]
s = matmul(q, transpose(k, 2, 3)) * 0.125
p = softmax(s, dim=-1)
o = matmul(p, v)
check B=1 H=1 S=1 T=1 D=1; B=2 H=3 S=5 T=17 D=7; B=1 H=2 S=33 T=31 D=64; B=1 H=1 S=7 T=129 D=13
bench B=32 H=16 S=1024 T=1024 D=64 weight=0.6; B=8 H=16 S=2048 T=2048 D=128 weight=0.4
bench cpu B=1 H=4 S=128 T=128 D=64 weight=1
tol atol=1e-5 rtol=1e-4
