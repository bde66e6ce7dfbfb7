# Constant padding of the two spatial dims of an image batch (F.pad with
# pad (2, 3, 1, 1) and value 0.5): W grows by 5, H by 2.
task pad_2d
level 1
category SpatialOps
about "Constant pad of [N, C, H, W]: pad(x, [2, 3, 1, 1], value=0.5)"
input  x: f32[N, C, H, W] ~ normal
output y: f32[N, C, H+2, W+5]
y = pad(x, [2, 3, 1, 1], value=0.5)
check N=1 C=1 H=1 W=1; N=2 C=3 H=5 W=7; N=1 C=4 H=33 W=31; N=3 C=2 H=17 W=129
bench N=256 C=64 H=254 W=251 weight=0.6; N=32 C=32 H=1022 W=1019 weight=0.4
bench cpu N=4 C=16 H=62 W=59 weight=1
