# Hinge loss with labels in {-1, 1}, drawn as integers and mapped by the
# task.  KernelBench #100 broadcasts [B, 1] predictions against [B] labels
# into [B, B]; here both are [B, D], elementwise.  The mean of 2.7e8 terms
# moves ~5e-5 relative between draws, so rtol is 1e-5 (as mse_loss).  It
# is written as the mean of the row means (the same value): the CPU eager
# baseline then sums rows separately and stays inside 1e-5.
task hinge_loss
level 1
category Loss
about "Hinge loss mean(clamp(1 - pred * t, min=0)), t = 2 * label - 1 in {-1, 1} (cf. KernelBench L1 #100_HingeLoss)"
input  pred: f32[B, D] ~ normal
input  label: i64[B, D] ~ randint(0, 2)
output loss: f32[]
t = cast(label, f32) * 2.0 - 1.0
loss = mean(mean(clamp(1.0 - pred * t, min=0.0), dim=1))
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=8192 D=32768 weight=0.7; B=2048 D=65536 weight=0.3
bench cpu B=256 D=4096 weight=1
tol atol=1e-5 rtol=1e-5
