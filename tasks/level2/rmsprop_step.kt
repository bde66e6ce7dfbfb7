# One step of torch.optim.RMSprop(lr=0.01, alpha=0.99, eps=1e-8,
# momentum=0.9, centered=False, weight_decay=0) on one flat parameter tensor,
# as PyTorch's single-tensor path computes it:
#   sq = alpha * sq + (1 - alpha) * g * g
#   buf = momentum * buf + g / (sqrt(sq) + eps)
#   p = p - lr * buf
# The state is drawn at its steady-state scale for unit gradients
# (E[sq] = 1, buf of a few units), so the update is ~0.02.
task rmsprop_step
level 2
category Optimizer
about "One RMSprop step with momentum (torch.optim.RMSprop, lr 0.01, alpha 0.99, eps 1e-8, momentum 0.9, not centered): new parameters, square average and momentum buffer"
input  p: f32[N] ~ normal
input  g: f32[N] ~ normal
input  sq: f32[N] ~ uniform(0.5, 1.5)
input  buf: f32[N] ~ normal(0, 2)
output p_new: f32[N]
output sq_new: f32[N]
output buf_new: f32[N]
sq_new = sq * 0.99 + g * g * 0.01
buf_new = buf * 0.9 + g / (sqrt(sq_new) + 1e-8)
p_new = p - buf_new * 0.01
check N=1; N=37; N=4097; N=1000003
bench N=67108864 weight=0.6; N=50000017 weight=0.4
bench cpu N=1048576 weight=1
