# Triplet margin loss, margin 1, p = 2, with torch's pairwise_distance
# (eps 1e-6 added to the difference).  Distances are ~sqrt(2D) and their
# difference ~+-1, so the clamp cuts about a third of the rows and the batch
# mean moves ~1e-2 between draws.
task triplet_margin_loss
level 1
category Loss
about "Triplet margin loss, margin 1.0: mean(clamp(|a - p + eps| - |a - n + eps| + 1, min=0)) (KernelBench L1 #99_TripletMarginLoss)"
input  a: f32[B, D] ~ normal
input  p: f32[B, D] ~ normal
input  n: f32[B, D] ~ normal
output loss: f32[]
dp = sqrt(sum((a - p + 1e-6) ** 2, dim=1))
dn = sqrt(sum((a - n + 1e-6) ** 2, dim=1))
loss = mean(clamp(dp - dn + 1.0, min=0.0))
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=16384 D=16384 weight=0.6; B=4096 D=65536 weight=0.4
bench cpu B=256 D=4096 weight=1
