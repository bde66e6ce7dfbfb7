# Smooth L1 (Huber, beta = delta = 1): 0.5*d^2 where |d| < 1, |d| - 0.5
# elsewhere, written as 0.5*m*m + (a - m) with a = |d|, m = min(a, 1).
# Mean over every element, written as the mean of the row means (the same
# value, and a CPU eager baseline that sums rows separately stays inside the
# tolerance); rtol 1e-5 as mse_loss.
task smooth_l1_loss
level 1
category Loss
about "Smooth L1 (Huber) loss with beta 1, reduction mean (KernelBench L1 #96_HuberLoss)"
input  pred: f32[B, D] ~ normal
input  target: f32[B, D] ~ normal
output loss: f32[]
a = abs(pred - target)
m = minimum(a, 1.0)
loss = mean(mean(0.5 * m * m + (a - m), dim=1))
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=8192 D=32768 weight=0.7; B=2048 D=65536 weight=0.3
bench cpu B=256 D=4096 weight=1
tol atol=1e-5 rtol=1e-5
