# kjudge-case: task=level1/rms_norm expect=pass
"""RMSNorm over the last dim: one program per row, the mean of squares,
then x * rsqrt(ms + eps) * w."""
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, D, eps, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * D
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < D, other=0.0)
        acc += x * x
    r = 1.0 / tl.sqrt(tl.sum(acc, 0) / D + eps)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < D
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + offs, mask=mask, other=0.0)
        tl.store(y_ptr + base + offs, x * r * w, mask=mask)


def rms_norm(x, w, y, B: int, S: int, D: int) -> None:
    rows = B * S
    if rows == 0 or D == 0:
        return
    BLOCK = min(4096, max(32, triton.next_power_of_2(D)))
    rms_norm_kernel[(rows,)](x, w, y, D, 1e-6, BLOCK=BLOCK, num_warps=8 if BLOCK >= 2048 else 4)
