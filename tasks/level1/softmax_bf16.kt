# Row softmax on bf16: computed in f32, rounded once.  The probabilities
# are ~1/D, far below the bf16 atol of 1e-2, so atol is 1e-6 and the check
# is relative (1e-2, about two bf16 ulps); a constant 1/D fails.
task softmax_bf16
level 1
category Normalization
about "Softmax over the last dimension on bfloat16 tensors (KernelBench L1 #23_Softmax, bf16 variant)"
input  x: bf16[B, D] ~ normal
output y: bf16[B, D]
y = softmax(x, dim=-1)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=2 D=131
bench B=16384 D=65536 weight=0.7; B=4096 D=262144 weight=0.3
bench cpu B=64 D=4096 weight=1
tol atol=1e-6 rtol=1e-2
