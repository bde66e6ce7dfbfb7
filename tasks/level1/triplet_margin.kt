# nn.TripletMarginLoss(margin=1.0) as one op: per row max(0, |a - p + eps|
# - |a - n + eps| + 1) with the 2-norm and eps 1e-6, then the mean.
task triplet_margin
level 1
category Loss
about "Triplet margin loss, margin 1.0, p 2, mean over rows (KernelBench L1 #99_TripletMarginLoss)"
input  a: f32[B, D] ~ normal
input  p: f32[B, D] ~ normal
input  n: f32[B, D] ~ normal
output loss: f32[]
loss = triplet_margin_loss(a, p, n, margin=1.0)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=65536 D=8192 weight=0.6; B=16384 D=32768 weight=0.4
bench cpu B=256 D=4096 weight=1
