# Dynamic per-row (per-token) symmetric int8 quantization, the first step of
# a W8A8 layer: s = max|x| / 127 per row, q = round(x / s), halves to even.
# q is an integer output, judged exactly, so the reference pins the float
# arithmetic: s is rounded to f32 (cast) and x / s is one f32 division
# (cast), which is what a kernel computing `s = amax / 127.0f; q =
# rintf(x[i] / s)` gets bit for bit.  Multiplying by a reciprocal 127 / amax
# instead rounds differently now and then and fails.  |x / s| <= 127 (the
# row maximum gives 127), so no clamp is needed.
task int8_quantize_rows
level 1
category Quantization
about "Per-row symmetric int8 quantization: s = max(|x|, dim=1) / 127 (f32), q = round(x / s) (halves to even) as i8; both returned"
input  x: f32[M, K] ~ normal
output q: i8[M, K]
output s: f32[M, 1]
s = cast(max(abs(x), dim=1, keepdim=True) / 127.0, f32)
q = cast(round(cast(x / s, f32)), i8)
check M=1 K=1; M=3 K=1000; M=17 K=4097; M=2 K=131
bench M=32768 K=8192 weight=0.6; M=4096 K=32768 weight=0.4
bench cpu M=256 K=4096 weight=1
