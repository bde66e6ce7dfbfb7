# Edge windows divide by 4 although one of their taps is padding (count_include_pad=True).
task avg_pool1d
level 1
category Pooling
about "Average pooling 1D, kernel 4, stride 2, padding 1, count_include_pad (KernelBench L1 #44_Average_Pooling_1D; bench sizes scaled)"
input  x: f32[N, C, L] ~ normal
output y: f32[N, C, (L-2)/2+1]
y = avg_pool1d(x, 4, stride=2, padding=1)
check N=1 C=1 L=2; N=2 C=3 L=17; N=3 C=5 L=130
bench N=128 C=128 L=65536 weight=1
bench cpu N=8 C=32 L=4096 weight=1
