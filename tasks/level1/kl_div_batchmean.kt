# F.kl_div(log(p), t, reduction="batchmean") with positive p and t (not
# normalized: the pointwise formula t * (log t - log p) is the same).  The
# batch mean moves ~1e-4 relative between draws, so rtol is 1e-5; a tree or
# blocked f32 sum is good to ~1e-7.
task kl_div_batchmean
level 1
category Loss
about "KL divergence kl_div(log(p), t, reduction=batchmean): sum(t * (log t - log p)) / B (KernelBench L1 #98_KLDivLoss)"
input  p: f32[B, D] ~ uniform(0.001, 1)
input  t: f32[B, D] ~ uniform(0.001, 1)
output loss: f32[]
loss = kl_div(log(p), t, reduction="batchmean")
check B=1 D=2; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=16384 D=16384 weight=0.6; B=4096 D=131072 weight=0.4
bench cpu B=64 D=4096 weight=1
tol atol=1e-6 rtol=1e-5
