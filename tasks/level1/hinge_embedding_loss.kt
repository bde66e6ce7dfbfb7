# Hinge embedding loss with targets +-1 drawn as 0/1 bytes: x where the
# target is 1, max(0, 1 - x) where it is -1, averaged.  The mean moves
# ~1e-4 relative between draws, so rtol is 1e-5.
task hinge_embedding_loss
level 1
category Loss
about "Hinge embedding loss, margin 1, mean over every element, targets 2 * label - 1 in {-1, 1} (cf. KernelBench L1 #100_HingeLoss)"
input  x: f32[B, D] ~ normal
input  label: i8[B, D] ~ randint(0, 2)
output loss: f32[]
loss = hinge_embedding_loss(x, label * 2 - 1, margin=1.0)
check B=1 D=3; B=3 D=1000; B=17 D=4097; B=2 D=33
bench B=16384 D=32768 weight=0.6; B=16384 D=32768 weight=0.4
bench cpu B=256 D=4096 weight=1
tol atol=1e-6 rtol=1e-5
