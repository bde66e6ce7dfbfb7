# nn.Linear: y = x @ w^T + b, w of shape [out, in] with kaiming-uniform init,
# so outputs stay O(1) and the default f32 tolerance holds.
task linear
level 1
category MatrixMultiply
about "Fully connected layer y = x @ w^T + b (torch.nn.Linear)"
input  x: f32[N, IN] ~ normal
param  w: f32[OUT, IN] ~ kaiming
param  b: f32[OUT] ~ uniform(-0.1, 0.1)
output y: f32[N, OUT]
y = linear(x, w, b)
check N=1 IN=1 OUT=1; N=3 IN=37 OUT=5; N=17 IN=129 OUT=67; N=2 IN=1000 OUT=3
bench N=8192 IN=4096 OUT=4096 weight=0.6; N=1024 IN=8192 OUT=8192 weight=0.4
bench cpu N=128 IN=256 OUT=256 weight=1
