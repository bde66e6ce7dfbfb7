# 1 - cos(a_i, b_i) per row.  KernelBench #97 returns the batch mean,
# which for independent inputs is 1 +- ~1e-4: a constant 1.0 passes.  Here
# the per-row losses are the output (cos ~ +-1/sqrt(D)) and atol is 1e-6,
# so every row's cosine must be right.  f32 dot products are good to ~1e-9
# in cosine.
task cosine_similarity_loss
level 1
category Loss
about "Cosine similarity loss per row: 1 - sum(a*b) / (|a| * |b|) over dim 1 (after KernelBench L1 #97_CosineSimilarityLoss, reduction none)"
input  a: f32[B, D] ~ normal
input  b: f32[B, D] ~ normal
output loss: f32[B]
dot = sum(a * b, dim=1)
na = sqrt(sum(a * a, dim=1))
nb = sqrt(sum(b * b, dim=1))
loss = 1.0 - dot / (na * nb)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=32768 D=16384 weight=0.6; B=4096 D=131072 weight=0.4
bench cpu B=256 D=4096 weight=1
tol atol=1e-6 rtol=0
