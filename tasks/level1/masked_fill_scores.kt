# An attention mask applied to scores: masked_fill(scores, mask, -1e4) with
# one [S, S] mask broadcast over batch and heads.
task masked_fill_scores
level 1
category Index
about "Masked fill of attention scores: masked_fill(x, mask, -10000.0), mask [S, S] broadcast over [B, H, S, S]"
input  x: f32[B, H, S, S] ~ normal
input  mask: bool[S, S] ~ randint(0, 2)
output y: f32[B, H, S, S]
y = masked_fill(x, mask, -10000.0)
check B=1 H=1 S=2; B=2 H=3 S=5; B=1 H=2 S=67; B=3 H=1 S=129
bench B=32 H=16 S=1024 weight=0.6; B=4 H=16 S=4096 weight=0.4
bench cpu B=2 H=4 S=256 weight=1
