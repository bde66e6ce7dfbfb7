# W4A16 GEMM (weight-only int4, GPTQ/AWQ style): f16 activations times a
# weight stored as signed int4, two per byte, with one f16 scale per group
# of 2H consecutive weights of a row (NG groups, K = NG * 2H).  Byte j of a
# row holds weight 2j in its low nibble and weight 2j+1 in its high nibble,
# each a two's complement int4 in [-8, 7].  The task states the unpacking
# with shifts: (b << 4) >> 4 sign-extends the low nibble, b >> 4 is the high
# one.  A correct kernel errs by f16 roundings (2^-11 relative); swapping
# the nibbles, dropping the sign or a scale fails the metric.  Scales put
# y at RMS ~1 for K = 4096.
task w4a16_gemm
level 1
category Quantization
about "W4A16 GEMM: y = x @ dequant(w)^T, x f16, w packed int4 (low nibble first) with one f16 scale per group of 2H weights (KernelBench-X Quantization W4A16)"
input  x: f16[M, NG*2*H] ~ normal
input  wp: i8[N, NG*H] ~ randint(-128, 128)
input  s: f16[N, NG, 1] ~ uniform(0.002, 0.005)
output y: f16[M, N]
lo = bitwise_right_shift(bitwise_left_shift(wp, 4), 4)
hi = bitwise_right_shift(wp, 4)
wi = reshape(cat(reshape(lo, [N, NG*H, 1]), reshape(hi, [N, NG*H, 1]), dim=2), [N, NG, 2*H])
w = reshape(cast(wi, f16) * s, [N, NG*2*H])
y = linear(x, w)
check M=1 N=1 NG=1 H=1; M=3 N=5 NG=3 H=7; M=17 N=33 NG=2 H=64; M=5 N=131 NG=5 H=9
bench M=8192 N=14336 NG=32 H=64 weight=0.6; M=16 N=28672 NG=64 H=64 weight=0.4
bench cpu M=16 N=256 NG=8 H=64 weight=1
metric cos>=0.999 l1<=0.01 rmse<=0.02
