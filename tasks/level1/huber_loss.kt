# Huber loss with delta 1 (the same function as smooth_l1_loss with beta 1,
# KernelBench's #96), mean over every element.  rtol 1e-5 as mse_loss.
task huber_loss
level 1
category Loss
about "Huber loss, delta 1.0, reduction mean (KernelBench L1 #96_HuberLoss)"
input  pred: f32[B, D] ~ normal
input  target: f32[B, D] ~ normal
output loss: f32[]
loss = huber_loss(pred, target, delta=1.0)
check B=1 D=3; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=32768 D=32768 weight=0.7; B=8192 D=65536 weight=0.3
bench cpu B=256 D=4096 weight=1
tol atol=1e-6 rtol=1e-5
