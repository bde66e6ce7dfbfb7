# KernelBench L2 #66 takes the mean over features (keepdim) and then a
# softmax over that single column: every output is exactly 1.0.  Here the
# softmax runs over the features and the mean over the batch, giving a
# probability per feature that depends on its weights and bias.  Dropout in
# eval mode is the identity.  Outputs are ~1/OUT, so atol is 1e-12 and the
# check is relative.
task matmul_softmax_batch_mean
level 2
category Fusion
about "Linear, dropout (eval: identity), softmax over features, mean over the batch (after KernelBench L2 #66_Matmul_Dropout_Mean_Softmax)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[OUT]
y = mean(softmax(linear(x, w, b), dim=1), dim=0)
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=1024 IN=8192 OUT=8192 weight=0.5; N=8192 IN=4096 OUT=4096 weight=0.5
bench cpu N=128 IN=256 OUT=256 weight=1
tol atol=1e-12 rtol=1e-4
