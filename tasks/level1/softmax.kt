# Row softmax.  A candidate must subtract the row maximum (outlier draws reach
# x50 and overflow exp in f32 otherwise).
task softmax
level 1
category Normalization
about "Softmax over the last dimension (KernelBench L1 #23_Softmax)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = softmax(x, dim=-1)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=2 D=131
bench B=8192 D=65536 weight=0.7; B=2048 D=262144 weight=0.3
bench cpu B=64 D=4096 weight=0.7; B=1024 D=257 weight=0.3
