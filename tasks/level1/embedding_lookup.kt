# Token embedding lookup: row idx[b, s] of the table for every position.
# Memory-bound: the output and the rows it copies.
task embedding_lookup
level 1
category Index
about "Embedding lookup y[b, s, :] = table[idx[b, s], :] with i64 indices (nn.Embedding forward)"
input  idx: i64[B, S] ~ randint(0, V)
param  table: f32[V, D] ~ normal
output y: f32[B, S, D]
y = embedding(idx, table)
check B=1 S=2 V=2 D=1; B=2 S=5 V=7 D=3; B=3 S=33 V=1000 D=65; B=1 S=129 V=17 D=256
bench B=128 S=2048 V=32000 D=4096 weight=0.6; B=32 S=4096 V=128256 D=4096 weight=0.4
bench cpu B=4 S=256 V=1000 D=512 weight=1
