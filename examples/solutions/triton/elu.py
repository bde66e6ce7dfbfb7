# kjudge-case: task=level1/elu expect=pass
"""ELU, alpha 1: expm1 keeps small negative inputs exact."""
import triton
import triton.language as tl
from triton.language.extra import libdevice

@triton.jit
def elu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, libdevice.expm1(x)), mask=mask)


def elu(x, y, B: int, D: int) -> None:
    n = B * D
    if n:
        elu_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
