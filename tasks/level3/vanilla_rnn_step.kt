# One step of an Elman RNN as KernelBench's VanillaRNN: the new hidden state
# tanh(i2h(cat(x, h))) and the output h2o(hidden).  i2h's weight over the
# concatenation [x, h] is given as its two blocks wx and wh, so the step is
# linear(x, wx, b) + linear(h, wh); both results are outputs.
task vanilla_rnn_step
level 3
category Architecture
about "Vanilla RNN step: h' = tanh(x Wx^T + h Wh^T + b), y = h' Wo^T + bo; returns h' and y (KernelBench L3 #33_VanillaRNN)"
input  x: f32[B, IN] ~ normal
input  h: f32[B, H] ~ normal
param  wx: f32[H, IN] ~ kaiming
param  wh: f32[H, H] ~ kaiming
param  b: f32[H] ~ uniform(-0.1, 0.1)
param  wo: f32[OUT, H] ~ kaiming
param  bo: f32[OUT] ~ uniform(-0.1, 0.1)
output hn: f32[B, H]
output y: f32[B, OUT]
hn = tanh(linear(x, wx, b) + linear(h, wh))
y = linear(hn, wo, bo)
check B=1 IN=1 H=1 OUT=1; B=3 IN=37 H=5 OUT=2; B=17 IN=129 H=67 OUT=13; B=2 IN=1000 H=33 OUT=7
bench B=4096 IN=4096 H=4096 OUT=1024 weight=0.5; B=256 IN=1024 H=8192 OUT=8192 weight=0.5
bench cpu B=64 IN=256 H=256 OUT=64 weight=1
