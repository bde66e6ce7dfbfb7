# One step of torch.optim.Adam(lr=0.01, betas=(0.9, 0.999), eps=1e-8,
# weight_decay=0.01) at step 10, on one flat parameter tensor, as PyTorch's
# single-tensor path computes it.  Unlike AdamW (adamw_step), the weight
# decay is coupled: it is added to the gradient before the moments,
#   g' = g + wd * p
#   m = beta1 * m + (1 - beta1) * g';  v = beta2 * v + (1 - beta2) * g' * g'
#   p = p - lr / (1 - beta1^10) * m / (sqrt(v) / sqrt(1 - beta2^10) + eps)
# with the bias corrections folded into constants: lr / (1 - 0.9^10) =
# 0.015353399327876296 and 1 / sqrt(1 - 0.999^10) = 10.022515922231536.
# The moments are drawn at the scale they have at step 10 for unit
# gradients, so the update is ~5e-3, well above the f32 tolerance.
task adam_step
level 2
category Optimizer
about "One Adam step at step 10 (torch.optim.Adam, lr 0.01, betas (0.9, 0.999), eps 1e-8, L2 weight decay 0.01 added to the gradient): new parameters and both moment buffers"
input  p: f32[N] ~ normal
input  g: f32[N] ~ normal
input  m: f32[N] ~ normal(0, 0.3)
input  v: f32[N] ~ uniform(0.005, 0.015)
output p_new: f32[N]
output m_new: f32[N]
output v_new: f32[N]
gd = g + p * 0.01
m_new = m * 0.9 + gd * 0.1
v_new = v * 0.999 + gd * gd * 0.001
p_new = p - m_new * 0.015353399327876296 / (sqrt(v_new) * 10.022515922231536 + 1e-8)
check N=1; N=37; N=4097; N=1000003
bench N=67108864 weight=0.6; N=50000017 weight=0.4
bench cpu N=1048576 weight=1
