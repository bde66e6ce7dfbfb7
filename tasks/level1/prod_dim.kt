# Product over a short middle dim (K <= 8) of values near 1, so that it
# neither underflows nor overflows.  The tolerance is made relative (atol
# 1e-6): on uniform(-1,1) draws the products are small, and an absolute 1e-4
# would let zeros pass.
task prod_dim
level 1
category Reduce
about "Product over dim 1 (a short dim, K <= 8)"
input  x: f32[B, K, N] ~ uniform(0.5, 1.5)
output y: f32[B, N]
y = prod(x, dim=1)
check B=1 K=1 N=1; B=3 K=3 N=1000; B=2 K=5 N=4097; B=7 K=2 N=31
bench B=256 K=8 N=524288 weight=0.6; B=8192 K=4 N=32768 weight=0.4
bench cpu B=8 K=8 N=16384 weight=1
tol atol=1e-6 rtol=1e-4
