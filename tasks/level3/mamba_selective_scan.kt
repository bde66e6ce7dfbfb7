# The selective scan of a Mamba (S6) layer: per channel d and state n,
#   h_t = exp(dt_t * A[d, n]) * h_{t-1} + dt_t * x_t * B_t[n],  y_t = sum_n C_t[n] h_t + Dskip * x_t
# with dt = softplus(dt_raw) clamped to at most 0.1 (Mamba-2's dt_limit) and
# A = -exp(a_log) with a_log clamped to at most 0, written in closed form with
# cumulative sums: h_t = exp(L_t) * cumsum_s(exp(-L_s) * u_s), L = cumsum(dt * A).
# A candidate may scan sequentially or in chunks.  dt_raw in [-5, -3] and A
# in [-1, -0.14] keep the total decay over 1024 steps near 20, so exp(-L)
# stays far from f32 overflow; the clamps bound it for the outlier draws too
# (x50 with a random sign: dt_raw = +250 or a_log = +100 would overflow).
task mamba_selective_scan
level 3
category Architecture
about "Mamba selective scan (S6): input-dependent dt, B, C; diagonal A; h_t = exp(dt A) h_{t-1} + dt B x_t, y = C h + D x (after KernelBench L3 #48_Mamba2ReturnY)"
input  x: f32[B, L, D] ~ normal
input  dt_raw: f32[B, L, D] ~ uniform(-5, -3)
param  a_log: f32[D, N] ~ uniform(-2, 0)
input  bm: f32[B, L, N] ~ normal
input  cm: f32[B, L, N] ~ normal
param  dskip: f32[D] ~ uniform(0.5, 1.5)
output y: f32[B, L, D]
dt = clamp(softplus(dt_raw), max=0.1)
la = cumsum(reshape(dt, [B, L, D, 1]) * (-exp(clamp(a_log, max=0.0))), dim=1)
u = reshape(dt * x, [B, L, D, 1]) * reshape(bm, [B, L, 1, N])
h = exp(la) * cumsum(exp(-la) * u, dim=1)
y = sum(h * reshape(cm, [B, L, 1, N]), dim=3) + x * dskip
check B=1 L=1 D=1 N=1; B=2 L=5 D=3 N=7; B=1 L=33 D=17 N=4; B=3 L=129 D=5 N=2
bench B=8 L=1024 D=1024 N=16 weight=0.5; B=16 L=512 D=2048 N=8 weight=0.5
bench cpu B=1 L=256 D=32 N=8 weight=1
