# One step of the Lion optimizer (Chen et al. 2023, "Symbolic Discovery of
# Optimization Algorithms"; lr=1e-3, betas=(0.9, 0.99), weight_decay=1.0,
# decoupled) on one flat parameter tensor:
#   c = beta1 * m + (1 - beta1) * g
#   p = p * (1 - lr * wd) - lr * sign(c)
#   m = beta2 * m + (1 - beta2) * g
# sign(c) is written (c > 0) - (c < 0), exact, and discontinuous at 0: where |c| is within a rounding of zero an
# f32 kernel and the fp64 reference can disagree on the sign (about 5e-8 of
# the elements: a few per bench call), so the task is judged by metrics,
# which such flips do not move (relative L1 ~3e-7), while dropping the
# weight decay (~1e-3) or the sign (~0.4) fails.  The parameters are drawn
# at the scale of the update (normal(0, 0.002)) so that both show.
task lion_step
level 2
category Optimizer
about "One Lion step (lr 1e-3, betas (0.9, 0.99), decoupled weight decay 1.0): p = p (1 - lr wd) - lr sign(0.9 m + 0.1 g), m = 0.99 m + 0.01 g"
input  p: f32[N] ~ normal(0, 0.002)
input  g: f32[N] ~ normal
input  m: f32[N] ~ normal(0, 0.3)
output p_new: f32[N]
output m_new: f32[N]
c = m * 0.9 + g * 0.1
p_new = p * 0.999 - (cast(greater(c, 0.0), f32) - cast(less(c, 0.0), f32)) * 0.001
m_new = m * 0.99 + g * 0.01
check N=1; N=37; N=4097; N=1000003
bench N=67108864 weight=0.6; N=50000017 weight=0.4
bench cpu N=1048576 weight=1
metric cos>=0.9999 l1<=1e-4
