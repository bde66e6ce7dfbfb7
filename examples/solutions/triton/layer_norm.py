# kjudge-case: task=level1/layer_norm expect=pass
"""LayerNorm over the last dim: one program per row, a mean pass, a
variance pass around the mean (no cancellation), then the affine write."""
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, D, eps, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * D
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + offs, mask=offs < D, other=0.0)
    mean = tl.sum(acc, 0) / D
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < D, other=0.0)
        d = tl.where(offs < D, x - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, 0) / D + eps)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < D
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + offs, mask=mask, other=0.0)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0)
        tl.store(y_ptr + base + offs, (x - mean) * rstd * w + b, mask=mask)


def layer_norm(x, w, b, y, B: int, S: int, D: int) -> None:
    rows = B * S
    if rows == 0 or D == 0:
        return
    BLOCK = min(4096, max(32, triton.next_power_of_2(D)))
    layer_norm_kernel[(rows,)](x, w, b, y, D, 1e-5, BLOCK=BLOCK, num_warps=8 if BLOCK >= 2048 else 4)
