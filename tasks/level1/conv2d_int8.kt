# W8A8 quantized convolution as int8 inference engines run a ResNet layer:
# int8 activations with one scale per image (dynamic per-tensor
# quantization; a scale per input channel would not factor out of the
# sum), int8 weights with one scale per output channel, a 3x3 kernel with
# padding 1, the products summed exactly in int32, then dequantized and a
# float bias added per output channel.  The int32 sum is exact, so a
# correct kernel errs only by the f32 roundings of the dequantization
# (~1e-7 relative): the tolerance is tight, and a kernel that sums in int16
# or f16, drops a scale or mishandles the padding fails.  Scales put y at
# RMS ~1 for C = 64.
task conv2d_int8
level 1
category Quantization
about "W8A8 conv2d: y = float(conv2d(xq, wq, padding=1) as exact int32) * sx (per image) * sw (per output channel) + b, int8 inputs, 3x3 kernel, f32 output (KernelBench-X Quantization, int8 conv)"
input  xq: i8[N, CI, H, W] ~ randint(-128, 128)
input  wq: i8[CO, CI, 3, 3] ~ randint(-128, 128)
input  sx: f32[N, 1, 1, 1] ~ uniform(0.002, 0.004)
input  sw: f32[1, CO, 1, 1] ~ uniform(0.002, 0.004)
input  b: f32[1, CO, 1, 1] ~ normal
output y: f32[N, CO, H, W]
acc = conv2d(xq, wq, padding=1)
y = cast(acc, f32) * sx * sw + b
check N=1 CI=1 CO=1 H=1 W=1; N=2 CI=3 CO=5 H=7 W=9; N=3 CI=17 CO=4 H=5 W=13; N=1 CI=67 CO=33 H=11 W=6; N=2 CI=20 CO=24 H=8 W=6
bench N=128 CI=512 CO=512 H=56 W=56 weight=0.6; N=64 CI=256 CO=256 H=112 W=112 weight=0.4
bench cpu N=1 CI=16 CO=16 H=32 W=32 weight=1
tol atol=1e-5 rtol=1e-5
