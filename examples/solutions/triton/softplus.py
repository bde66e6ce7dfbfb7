# kjudge-case: task=level1/softplus expect=pass
"""Softplus, beta 1, threshold 20 (x itself above it, as torch does)."""
import triton
import triton.language as tl
from triton.language.extra import libdevice

@triton.jit
def softplus_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 20.0, x, libdevice.log1p(tl.exp(x))), mask=mask)


def softplus(x, y, B: int, D: int) -> None:
    n = B * D
    if n:
        softplus_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
