# Bilinear sampling of NCHW images at a per-pixel grid (F.grid_sample(x,
# grid, mode="bilinear", padding_mode="zeros", align_corners=False), the
# sampler of a spatial transformer).  The grid is drawn from
# uniform(-1.1, 1.1), so a few samples fall partly or wholly outside the
# image (their outer taps count 0) and outlier seeds push some far outside
# (output 0).
#
# Tolerance: the reference takes the pixel coordinate
# ix = ((x + 1) * W - 1) / 2 in double from the f32 grid value; an f32
# kernel (PyTorch's, the baseline) rounds it, off by up to ~6e-8 * W pixels
# (1.2e-7 * W with align_corners=True), and a bilinear output moves by that
# times the difference of neighbouring pixels: below 1e-4 for normal pixels
# and W <= 64, but up to ~1.5e-3 next to an outlier pixel (x 50) of the
# outlier seeds.  Hence atol 2e-3 and images of at most 64 x 64; a 16-bit
# intermediate still fails (rounding a value of 100 to f16 errs by 0.03).
# No nearest mode here: its pixel round(ix) jumps where ix crosses k + 0.5,
# and an f32 coordinate sits within its rounding error of such an edge for
# about one sample in 10^5 (a different pixel, an error of order 1), so a
# correct f32 kernel would fail now and then against the fp64 reference.
task grid_sample
level 1
category SpatialOps
about "Bilinear grid sampling of [N, C, H, W] at grid [N, OH, OW, 2] (F.grid_sample mode=bilinear, padding_mode=zeros, align_corners=False)"
input  x: f32[N, C, H, W] ~ normal
input  grid: f32[N, OH, OW, 2] ~ uniform(-1.1, 1.1)
output y: f32[N, C, OH, OW]
y = grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
tol atol=2e-3 rtol=1e-4
check N=1 C=1 H=1 W=1 OH=1 OW=3; N=2 C=3 H=5 W=7 OH=4 OW=6; N=1 C=2 H=17 W=9 OH=11 OW=13; N=3 C=5 H=6 W=31 OH=1 OW=37
bench N=320 C=256 H=64 W=64 OH=128 OW=128 weight=0.6; N=176 C=512 H=48 W=64 OH=112 OW=144 weight=0.4
bench cpu N=4 C=16 H=64 W=64 OH=96 OW=96 weight=1
