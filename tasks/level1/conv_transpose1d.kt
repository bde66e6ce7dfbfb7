# Weight [in, out, k] as torch.nn.ConvTranspose1d; kaiming's fan_in = CO*3 keeps outputs O(1).
task conv_transpose1d
level 1
category Convolution
about "Transposed 1D convolution, kernel 3, stride 1 (KernelBench L1 #64_conv_transposed_1D; bench sizes scaled)"
input  x: f32[N, CI, L] ~ normal
param  w: f32[CI, CO, 3] ~ kaiming
output y: f32[N, CO, L+2]
y = conv_transpose1d(x, w)
check N=1 CI=1 CO=1 L=1; N=2 CI=3 CO=5 L=17; N=3 CI=7 CO=4 L=130
bench N=64 CI=128 CO=64 L=16384 weight=1
bench cpu N=4 CI=32 CO=16 L=1024 weight=1
