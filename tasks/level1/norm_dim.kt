# Euclidean norm over the middle dim of a 3-D tensor (torch.norm(x, dim=1)).
# Bench shapes read 5.4 GB each: at the read roofline (~4.3 TB/s on the H200)
# that is ~1.2 ms, inside the 1-15 ms sizing rule (4.3 GB measured 0.97 ms).
task norm_dim
level 1
category Reduce
about "2-norm over dim 1 of [B, M, N]: norm(x, p=2.0, dim=1)"
input  x: f32[B, M, N] ~ normal
output y: f32[B, N]
y = norm(x, p=2.0, dim=1)
check B=1 M=1 N=1; B=3 M=17 N=5; B=2 M=1000 N=33; B=5 M=4097 N=3
bench B=160 M=4096 N=2048 weight=0.6; B=80 M=256 N=65536 weight=0.4
bench cpu B=16 M=256 N=256 weight=1
