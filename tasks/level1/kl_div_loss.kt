# KL(t || p) with reduction batchmean for two softmax distributions given
# by logits.  KernelBench #98 passes probabilities and takes torch.log of
# them; here the log-probabilities come from log_softmax, which is the same
# value without log(0) = -inf for underflowed probabilities.  The batch
# mean barely moves between draws, so rtol is 1e-5.
task kl_div_loss
level 1
category Loss
about "KL divergence, batchmean: mean over rows of sum(t * (log t - log p)), p, t softmax of logits (cf. KernelBench L1 #98_KLDivLoss)"
input  xp: f32[B, D] ~ normal
input  xt: f32[B, D] ~ normal
output loss: f32[]
lp = log_softmax(xp, dim=1)
lt = log_softmax(xt, dim=1)
loss = mean(sum(exp(lt) * (lt - lp), dim=1))
check B=1 D=2; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=8192 D=32768 weight=0.6; B=65536 D=4096 weight=0.4
bench cpu B=64 D=4096 weight=1
tol atol=1e-6 rtol=1e-5
