# A language-model head and its loss: logits = x @ w^T over a vocabulary of V,
# then the mean cross-entropy against int64 targets.  Fusing avoids writing
# the [N, V] logits at all.
task linear_cross_entropy
level 2
category Fusion
about "LM head + loss: cross_entropy(linear(x, w), target), reduction mean"
input  x: f32[N, D] ~ normal
input  target: i64[N] ~ randint(0, V)
param  w: f32[V, D] ~ kaiming
output loss: f32[]
logits = linear(x, w)
loss = cross_entropy(logits, target)
check N=1 D=1 V=2; N=3 D=17 V=5; N=17 D=33 V=1000; N=2 D=7 V=4099
bench N=2048 D=2048 V=32000 weight=0.6; N=4096 D=1024 V=50257 weight=0.4
bench cpu N=64 D=128 V=1024 weight=1
