# Cross-entropy of logits against integer class targets, mean over the batch.
# C >= 2 everywhere: with one class the loss is identically 0.  The batch
# mean moves only ~4e-4 between draws at B=65536, so rtol is 1e-5.
task cross_entropy
level 1
category Loss
about "Cross-entropy loss over logits [B, C] with int64 targets, reduction mean (KernelBench L1 #95_CrossEntropyLoss)"
input  logits: f32[B, C] ~ normal
input  target: i64[B] ~ randint(0, C)
output loss: f32[]
loss = cross_entropy(logits, target, reduction="mean")
check B=1 C=2; B=3 C=1000; B=17 C=4097; B=5 C=3
bench B=131072 C=8192 weight=0.6; B=65536 C=32000 weight=0.4
bench cpu B=256 C=4096 weight=1
tol atol=1e-5 rtol=1e-5
