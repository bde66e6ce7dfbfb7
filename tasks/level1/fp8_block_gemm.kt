# DeepSeek-V3-style block-scaled fp8 GEMM: a (activations) and b (weights)
# arrive quantized to f8e4m3 (torch.float8_e4m3fn), a with one f32 scale per
# 1x128 block of a row (sa[m, kb]), b with one per 128x128 block (sb[nb,
# kb]); y = (a * sa) @ (b * sb)^T in bf16.
#
# Judged by metrics.  The products of two e4m3 values are exact in f32; a
# textbook Hopper kernel sums each 128-wide K block on the fp8 tensor cores,
# then scales the block's partial sum by sa*sb and adds it in f32 (DeepSeek's
# promotion every 128 elements).  The reference ends with the cast to bf16,
# so an honest kernel differs from it only where its f32 (or the tensor
# cores' ~14-bit fp8 accumulator's) rounding moves y across a bf16 rounding
# boundary, by one bf16 ulp (2^-8 relative): the CPU solution measures
# relative L1 <= 1e-6 and cos >= 0.999999; a simulated 13-bit accumulator
# (truncated after every 32 products) stays within 1.5e-3 of the unrounded
# fp64 product, bf16 rounding included, at K = 128 ... 7168: l1 <= 0.01
# leaves a margin of 7 or more, cos >= 0.999 (honest 1 - cos ~1e-6) more.
# Wrong kernels (simulated, K >= 512): no sa (y ~8x too large) L1 >= 6,
# no sb L1 >= 5, one scale per row instead of per block L1 ~0.4 and cos
# ~0.9, sb's K blocks in reverse L1 ~0.35 and cos ~0.93: all fail on every
# shape with KB >= 2 (with KB = 1 a per-row scale is the right one).
# sa, sb ~ U(0.05, 0.2) (a factor of 4 between blocks, as amax/448 of real
# activations varies) put y at RMS ~0.27 (K = 128) to ~1.5 (K = 7168).
# a, b ~ normal(0, 1): the e4m3 normal range down to 2^-6, and with the
# judge's x50 outliers values up to ~250, never past 448 (a cast of
# |x| > 464 gives NaN, as in PyTorch).  M is free; N = NB*128 and
# K = KB*128 are whole blocks, as the scales require.
task fp8_block_gemm
level 1
category Quantization
about "Block-scaled fp8 GEMM (DeepSeek-V3): y = (a * sa) @ (b * sb)^T as bf16; a f8e4m3 [M, K] with f32 scales per 1x128 block, b f8e4m3 [N, K] with f32 scales per 128x128 block"
input  a: f8e4m3[M, KB*128] ~ normal
input  sa: f32[M, KB] ~ uniform(0.05, 0.2)
input  b: f8e4m3[NB*128, KB*128] ~ normal
input  sb: f32[NB, KB] ~ uniform(0.05, 0.2)
output y: bf16[M, NB*128]
ad = reshape(reshape(cast(a, f32), [M, KB, 128]) * reshape(sa, [M, KB, 1]), [M, KB*128])
bd = reshape(reshape(cast(b, f32), [NB, 128, KB, 128]) * reshape(sb, [NB, 1, KB, 1]), [NB*128, KB*128])
y = cast(linear(ad, bd), bf16)
check M=1 NB=1 KB=1; M=3 NB=2 KB=1; M=17 NB=1 KB=3; M=67 NB=3 KB=2
bench M=4096 NB=56 KB=56 weight=0.6; M=2048 NB=144 KB=56 weight=0.4
bench cpu M=64 NB=2 KB=4 weight=1
metric cos>=0.999 l1<=0.01
