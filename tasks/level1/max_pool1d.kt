# Out = floor((L + 4 - 9 - 1) / 2) + 1; taps 3 apart.
task max_pool1d
level 1
category Pooling
about "Max pooling 1D, kernel 4, stride 2, padding 2, dilation 3 (KernelBench L1 #41_Max_Pooling_1D; bench sizes scaled)"
input  x: f32[N, C, L] ~ normal
output y: f32[N, C, (L-6)/2+1]
y = max_pool1d(x, 4, stride=2, padding=2, dilation=3)
check N=1 C=1 L=7; N=2 C=3 L=17; N=3 C=5 L=130
bench N=128 C=128 L=65536 weight=1
bench cpu N=8 C=32 L=4096 weight=1
