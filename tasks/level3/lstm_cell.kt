# One LSTM cell step (torch.nn.LSTMCell), with the input and hidden weights
# given per gate (torch's weight_ih is [wi; wf; wg; wo] stacked) and one
# bias per gate (torch's b_ih + b_hh).  Both the new hidden and the new cell
# state are outputs.
task lstm_cell
level 3
category Architecture
about "LSTM cell step: gates i, f, g, o from x and h; c' = f*c + i*g, h' = o*tanh(c') (one cell step of KernelBench L3 #35_LTSM)"
input  x: f32[B, IN] ~ normal
input  h: f32[B, H] ~ normal
input  c: f32[B, H] ~ normal
param  wi: f32[H, IN] ~ kaiming
param  wf: f32[H, IN] ~ kaiming
param  wg: f32[H, IN] ~ kaiming
param  wo: f32[H, IN] ~ kaiming
param  ui: f32[H, H] ~ kaiming
param  uf: f32[H, H] ~ kaiming
param  ug: f32[H, H] ~ kaiming
param  uo: f32[H, H] ~ kaiming
param  bi: f32[H] ~ uniform(-0.1, 0.1)
param  bf: f32[H] ~ uniform(-0.1, 0.1)
param  bg: f32[H] ~ uniform(-0.1, 0.1)
param  bo: f32[H] ~ uniform(-0.1, 0.1)
output hn: f32[B, H]
output cn: f32[B, H]
ig = sigmoid(linear(x, wi, bi) + linear(h, ui))
fg = sigmoid(linear(x, wf, bf) + linear(h, uf))
gg = tanh(linear(x, wg, bg) + linear(h, ug))
og = sigmoid(linear(x, wo, bo) + linear(h, uo))
cn = fg * c + ig * gg
hn = og * tanh(cn)
check B=1 IN=1 H=1; B=3 IN=37 H=5; B=17 IN=129 H=67; B=2 IN=1000 H=33
bench B=4096 IN=2048 H=2048 weight=0.5; B=512 IN=4096 H=4096 weight=0.5
bench cpu B=64 IN=128 H=128 weight=1
