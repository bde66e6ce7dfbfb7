# Nearest-neighbour resize of NCHW images (F.interpolate(x, size=(OH, OW),
# mode="nearest")): source index min(floor(dst * scale), in - 1) with
# scale = in / out rounded to f32 and the product rounded to f32, exactly as
# PyTorch computes it; an index taken from the exact ratio dst * in / out
# differs for some sizes (the check shapes include three: 26 -> 22, 14 -> 46,
# 21 -> 69) and picks another pixel there.
task upsample_nearest
level 1
category SpatialOps
about "Nearest-neighbour interpolation of [N, C, H, W] to [N, C, OH, OW] (F.interpolate mode=nearest; source index floor(dst * f32(in/out)) in f32)"
input  x: f32[N, C, H, W] ~ normal
output y: f32[N, C, OH, OW]
y = interpolate(x, size=[OH, OW], mode="nearest")
check N=1 C=1 H=1 W=1 OH=1 OW=3; N=2 C=3 H=5 W=7 OH=11 OW=13; N=1 C=2 H=26 W=9 OH=22 OW=20; N=3 C=1 H=14 W=21 OH=46 OW=69
bench N=16 C=64 H=512 W=512 OH=1024 OW=1024 weight=0.6; N=16 C=32 H=720 W=1280 OH=1080 OW=1920 weight=0.4
bench cpu N=2 C=16 H=128 W=128 OH=384 OW=384 weight=1
