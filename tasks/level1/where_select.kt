# Elementwise selection by a boolean mask (torch.where(m, a, b)).
task where_select
level 1
category Index
about "Select by mask: where(m, a, b) over [B, N]"
input  m: bool[B, N] ~ randint(0, 2)
input  a: f32[B, N] ~ normal
input  b: f32[B, N] ~ normal
output y: f32[B, N]
y = where(m, a, b)
check B=1 N=3; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=32768 N=16384 weight=0.6; B=4096 N=131072 weight=0.4
bench cpu B=256 N=4096 weight=1
