# Bilinear resize of NCHW images (F.interpolate(x, size=(OH, OW),
# mode="bilinear", align_corners=False)): the half-pixel source coordinate
# max(scale * (dst + 0.5) - 0.5, 0) with scale = in / out in f32, taps i0 and
# min(i0 + 1, in - 1).  The check shapes mix up- and down-sampling, odd
# ratios and extents of 1 (scale 0 and clamping at both edges).
task upsample_bilinear
level 1
category SpatialOps
about "Bilinear interpolation of [N, C, H, W] to [N, C, OH, OW] (F.interpolate mode=bilinear, align_corners=False)"
input  x: f32[N, C, H, W] ~ normal
output y: f32[N, C, OH, OW]
y = interpolate(x, size=[OH, OW], mode="bilinear", align_corners=False)
check N=1 C=1 H=1 W=1 OH=1 OW=3; N=2 C=3 H=5 W=7 OH=11 OW=13; N=1 C=2 H=17 W=9 OH=8 OW=20; N=3 C=1 H=4 W=6 OH=1 OW=9
bench N=16 C=64 H=512 W=512 OH=1024 OW=1024 weight=0.6; N=16 C=32 H=720 W=1280 OH=1080 OW=1920 weight=0.4
bench cpu N=2 C=16 H=128 W=128 OH=256 OW=256 weight=1
