# Outlier draws (x50) cross the threshold of 20, where PyTorch returns x unchanged.
task softplus
level 1
category Activation
about "Softplus with beta 1, threshold 20: log(1+exp(x)), x itself above the threshold (KernelBench L1 #29_Softplus)"
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = softplus(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=8192 D=65536 weight=0.7; B=4096 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
