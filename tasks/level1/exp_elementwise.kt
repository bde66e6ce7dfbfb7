# Inputs in [-1.5, 1.5): the outlier draws (x50) reach 75, whose exp is
# still finite in f32 (e^88.7 overflows).  The name avoids the C function exp.
task exp_elementwise
level 1
category Math
about "Exponential e^x, elementwise"
input  x: f32[B, D] ~ uniform(-1.5, 1.5)
output y: f32[B, D]
y = exp(x)
check B=1 D=1; B=3 D=1000; B=17 D=4097; B=5 D=31
bench B=8192 D=65536 weight=0.7; B=4096 D=131071 weight=0.3
bench cpu B=256 D=4096 weight=1
