# Quantized attention (SageAttention-style): int8 queries and keys with one
# scale per query row and per key row, the scores summed exactly in int32
# and dequantized, a float softmax, then probabilities (f16) times f16
# values.  One batch dim B (batch * heads).  Scales put the scores at a
# standard deviation ~1.3 for E = 128, so the softmax is neither flat nor
# one-hot.  A correct kernel errs by the f16 rounding of the probabilities
# and of the output; a dropped scale or a missing max subtraction fails.
task int8_attention
level 1
category Quantization
about "Quantized attention: softmax(int32(qq @ kq^T) * sq * sk) @ v with int8 q/k (per-row scales), f16 v and output (KernelBench-X Quantization, quantized attention)"
input  qq: i8[B, L, E] ~ randint(-128, 128)
input  kq: i8[B, S, E] ~ randint(-128, 128)
input  sq: f32[B, L, 1] ~ uniform(0.003, 0.006)
input  sk: f32[B, 1, S] ~ uniform(0.003, 0.006)
input  v: f16[B, S, Ev] ~ normal
output o: f16[B, L, Ev]
scores = cast(bmm(qq, transpose(kq, 1, 2)), f32) * sq * sk
p = softmax(scores, dim=-1)
o = bmm(cast(p, f16), v)
check B=1 L=1 S=1 E=1 Ev=1; B=2 L=5 S=7 E=37 Ev=3; B=3 L=17 S=130 E=64 Ev=33; B=1 L=67 S=5 E=128 Ev=64
bench B=64 L=2048 S=2048 E=128 Ev=128 weight=0.6; B=16 L=4096 S=4096 E=128 Ev=128 weight=0.4
bench cpu B=2 L=64 S=256 E=64 Ev=64 weight=1
metric cos>=0.999 l1<=0.01 rmse<=0.02
