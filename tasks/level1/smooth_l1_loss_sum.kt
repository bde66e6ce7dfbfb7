# Smooth L1 loss with beta 0.5 summed over every element (~1.3e8 at the
# first bench shape): quadratic below |d| = 0.5, linear above.
task smooth_l1_loss_sum
level 1
category Loss
about "Smooth L1 loss, beta 0.5, reduction sum (cf. KernelBench L1 #96_HuberLoss)"
input  pred: f32[B, D] ~ normal
input  target: f32[B, D] ~ normal
output loss: f32[]
loss = smooth_l1_loss(pred, target, reduction="sum", beta=0.5)
check B=1 D=3; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=16384 D=32768 weight=0.6; B=8192 D=65536 weight=0.4
bench cpu B=256 D=4096 weight=1
tol atol=1e-6 rtol=1e-5
