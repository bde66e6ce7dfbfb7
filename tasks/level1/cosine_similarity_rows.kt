# Row cosine similarities (the inner part of KernelBench's cosine loss,
# whose batch mean is ~1 for any input): cos ~ +-1/sqrt(D), so atol is 1e-6
# with no relative part.
task cosine_similarity_rows
level 1
category Loss
about "Cosine similarity per row cosine_similarity(a, b, dim=1), eps 1e-8 (after KernelBench L1 #97_CosineSimilarityLoss)"
input  a: f32[B, D] ~ normal
input  b: f32[B, D] ~ normal
output cos: f32[B]
cos = cosine_similarity(a, b, dim=1)
check B=1 D=2; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=32768 D=16384 weight=0.6; B=4096 D=131072 weight=0.4
bench cpu B=256 D=4096 weight=1
tol atol=1e-6 rtol=0
