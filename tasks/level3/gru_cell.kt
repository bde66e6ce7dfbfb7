# One GRU cell step (torch.nn.GRUCell) with per-gate weights; the reset and
# update gates get one bias each (torch's b_ih + b_hh), the candidate state
# keeps torch's two (b_hn sits inside the reset gate's product).
task gru_cell
level 3
category Architecture
about "GRU cell step: r, z gates; n = tanh(x Wn^T + bn + r*(h Un^T + bhn)); h' = (1-z)*n + z*h (one cell step of KernelBench L3 #39_GRU)"
input  x: f32[B, IN] ~ normal
input  h: f32[B, H] ~ normal
param  wr: f32[H, IN] ~ kaiming
param  wz: f32[H, IN] ~ kaiming
param  wn: f32[H, IN] ~ kaiming
param  ur: f32[H, H] ~ kaiming
param  uz: f32[H, H] ~ kaiming
param  un: f32[H, H] ~ kaiming
param  br: f32[H] ~ uniform(-0.1, 0.1)
param  bz: f32[H] ~ uniform(-0.1, 0.1)
param  bn: f32[H] ~ uniform(-0.1, 0.1)
param  bhn: f32[H] ~ uniform(-0.1, 0.1)
output hn: f32[B, H]
r = sigmoid(linear(x, wr, br) + linear(h, ur))
z = sigmoid(linear(x, wz, bz) + linear(h, uz))
n = tanh(linear(x, wn, bn) + r * linear(h, un, bhn))
hn = (1.0 - z) * n + z * h
check B=1 IN=1 H=1; B=3 IN=37 H=5; B=17 IN=129 H=67; B=2 IN=1000 H=33
bench B=4096 IN=2048 H=2048 weight=0.5; B=512 IN=4096 H=4096 weight=0.5
bench cpu B=64 IN=128 H=128 weight=1
