# bf16 in, bf16 out, with the other padding and corner convention than
# level1/grid_sample: F.grid_sample(x, grid, mode="bilinear",
# padding_mode="border", align_corners=True).  PyTorch computes a bf16
# grid_sample in f32 and rounds the result once to bf16; the judge compares
# at the bf16 tolerance (1e-2).  ix = (x + 1) / 2 * (W - 1) from a bf16 grid
# value is exact or nearly so in f32 (8 significant bits), so the f32
# coordinate error that sets level1/grid_sample's atol is far below the
# bf16 tolerance here.  The grid reaches 10% beyond [-1, 1], where "border"
# clamps to the edge pixels (outlier seeds: far beyond).
task grid_sample_bf16
level 1
category SpatialOps
about "Bilinear grid sampling on bfloat16 tensors, border padding, align_corners=True (F.grid_sample mode=bilinear, padding_mode=border, align_corners=True)"
input  x: bf16[N, C, H, W] ~ normal
input  grid: bf16[N, OH, OW, 2] ~ uniform(-1.1, 1.1)
output y: bf16[N, C, OH, OW]
y = grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=True)
check N=1 C=1 H=1 W=1 OH=1 OW=3; N=2 C=3 H=5 W=7 OH=4 OW=6; N=1 C=2 H=17 W=9 OH=11 OW=13; N=3 C=5 H=6 W=31 OH=1 OW=37
bench N=608 C=256 H=64 W=64 OH=128 OW=128 weight=0.6; N=328 C=512 H=48 W=64 OH=112 OW=144 weight=0.4
bench cpu N=4 C=16 H=64 W=64 OH=96 OW=96 weight=1
