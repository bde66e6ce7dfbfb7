# Non-negative inputs only.  The name avoids the C function sqrt.
task sqrt_elementwise
level 1
category Math
about "Square root of non-negative inputs, elementwise"
input  x: f32[B, D] ~ uniform(0.0, 4.0)
output y: f32[B, D]
y = sqrt(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=8192 D=65536 weight=0.7; B=4096 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
