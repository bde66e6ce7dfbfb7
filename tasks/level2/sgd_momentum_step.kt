# One step of torch.optim.SGD(lr=0.01, momentum=0.9, weight_decay=0.01,
# dampening=0, nesterov=False) after its first step, on one flat parameter
# tensor: d = g + wd * p; buf = momentum * buf + d; p = p - lr * buf.  Both
# the new parameters and the new momentum buffer are outputs (the state an
# optimizer must write back).  The update is ~0.013 and the weight decay
# moves buf by ~0.01: both are far above the f32 tolerance.
task sgd_momentum_step
level 2
category Optimizer
about "One SGD step with momentum 0.9, weight decay 0.01 and lr 0.01 (torch.optim.SGD, no dampening, not Nesterov): new parameters and momentum buffer"
input  p: f32[N] ~ normal
input  g: f32[N] ~ normal
input  buf: f32[N] ~ normal
output p_new: f32[N]
output buf_new: f32[N]
buf_new = buf * 0.9 + (g + p * 0.01)
p_new = p - buf_new * 0.01
check N=1; N=37; N=4097; N=1000003
bench N=134217728 weight=0.6; N=100000007 weight=0.4
bench cpu N=1048576 weight=1
