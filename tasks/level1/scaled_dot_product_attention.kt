# F.scaled_dot_product_attention as one op: softmax(q @ k^T / sqrt(D)) @ v.
# KernelBench draws torch.rand inputs; normal inputs keep the softmax from
# flattening (scores ~ N(0, 1) at any D).  Outputs are averages of ~T values
# (~0.05), so atol is 1e-5 as in level1/sdpa; the f32 baseline errs ~1e-6.
task scaled_dot_product_attention
level 1
category MatrixMultiply
about "Scaled dot-product attention, non-causal, scale 1/sqrt(D), over [B, H, S, D] (KernelBench L1 #97_ScaledDotProductAttention)"
input  q: f32[B, H, S, D] ~ normal
input  k: f32[B, H, T, D] ~ normal
input  v: f32[B, H, T, D] ~ normal
output o: f32[B, H, S, D]
o = scaled_dot_product_attention(q, k, v)
check B=1 H=1 S=1 T=1 D=1; B=2 H=3 S=5 T=17 D=7; B=1 H=2 S=33 T=31 D=64; B=1 H=1 S=7 T=129 D=13
bench B=16 H=32 S=512 T=512 D=1024 weight=0.5; B=32 H=16 S=1024 T=1024 D=64 weight=0.5
bench cpu B=1 H=4 S=128 T=128 D=64 weight=1
tol atol=1e-5 rtol=1e-4
