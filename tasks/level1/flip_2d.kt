# Reversal of the last two dims of a 3-D tensor (torch.flip(x, [1, 2])).
task flip_2d
level 1
category Index
about "Flip along dims 1 and 2: flip(x, [1, 2]) over [B, M, N]"
input  x: f32[B, M, N] ~ normal
output y: f32[B, M, N]
y = flip(x, [1, 2])
check B=1 M=1 N=2; B=3 M=5 N=7; B=2 M=33 N=1000; B=1 M=129 N=67
bench B=256 M=1024 N=4096 weight=0.6; B=64 M=4096 N=4096 weight=0.4
bench cpu B=8 M=256 N=512 weight=1
