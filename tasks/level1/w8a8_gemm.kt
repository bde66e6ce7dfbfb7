# W8A8 GEMM as served by int8 inference kernels: int8 activations (one scale
# per row, per-token) and int8 weights (one scale per output column,
# per-channel), the products summed exactly in int32 (torch._int_mm), then
# dequantized and rounded to bf16.  The int32 sum is exact, so a correct
# kernel errs only by the final rounding (bf16: 2^-9 relative): the metric
# passes it with a wide margin and fails a kernel that drops a scale, sums
# in a lossy type or skips part of K.  Scales put y at RMS ~1 for K = 4096.
task w8a8_gemm
level 1
category Quantization
about "W8A8 GEMM: y = (xq @ wq^T as exact int32) * sx (per row) * sw (per column), int8 inputs, bf16 output (KernelBench-X Quantization W8A8)"
input  xq: i8[M, K] ~ randint(-128, 128)
input  wq: i8[N, K] ~ randint(-128, 128)
input  sx: f32[M, 1] ~ uniform(0.001, 0.0025)
input  sw: f32[1, N] ~ uniform(0.001, 0.0025)
output y: bf16[M, N]
acc = linear(xq, wq)
y = cast(cast(acc, f32) * sx * sw, bf16)
check M=1 K=1 N=1; M=3 K=37 N=5; M=17 K=130 N=33; M=67 K=4099 N=7
bench M=8192 K=8192 N=8192 weight=0.6; M=8192 K=4096 N=14336 weight=0.4
bench cpu M=64 K=1024 N=256 weight=1
metric cos>=0.999 l1<=0.01 rmse<=0.02
