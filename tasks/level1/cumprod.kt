# Inclusive cumulative product along dim 1.  KernelBench draws torch.rand,
# whose products underflow to 0 after ~100 elements (a constant output);
# factors in [0.99, 1.01) keep the running product a random walk in log
# space (e^+-0.4 after 4096 steps).  Rows stay at 4096 (KernelBench has
# 32768): the judge's outlier draws multiply 0.1% of the factors by 50, and
# a row of 32768 would collect ~33 of them, past f32's range.  Relative
# tolerance 1e-3 as KernelBench; f32 products drift ~1e-5 relative.
task cumprod
level 1
category Math
about "Cumulative product along dim 1 (KernelBench L1 #90_cumprod)"
input  x: f32[B, N] ~ uniform(0.99, 1.01)
output y: f32[B, N]
y = cumprod(x, dim=1)
check B=1 N=1; B=3 N=1000; B=17 N=4097; B=2 N=33
bench B=262144 N=4096 weight=0.6; B=1048576 N=1024 weight=0.4
bench cpu B=256 N=4096 weight=1
tol atol=1e-5 rtol=1e-3
