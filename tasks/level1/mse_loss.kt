# Mean squared error over every element, a scalar.  The mean of 6.7e8 terms
# hardly moves between draws (relative spread ~6e-5), so the tolerance is
# tightened to 1e-5: a constant or a sampled estimate must not pass.  A
# tree-reduced f32 sum is good to ~1e-6 relative.
task mse_loss
level 1
category Loss
about "Mean squared error loss, reduction mean (KernelBench L1 #94_MSELoss)"
input  pred: f32[B, D] ~ normal
input  target: f32[B, D] ~ normal
output loss: f32[]
loss = mse_loss(pred, target, reduction="mean")
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=20480 D=32768 weight=0.7; B=10240 D=65536 weight=0.3
bench cpu B=256 D=4096 weight=1
tol atol=1e-5 rtol=1e-5
