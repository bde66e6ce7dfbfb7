# kjudge-case: task=level1/abs_elementwise expect=pass
"""Absolute value."""
import triton
import triton.language as tl


@triton.jit
def abs_elementwise_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.abs(x), mask=mask)


def abs_elementwise(x, y, B: int, D: int) -> None:
    n = B * D
    if n:
        abs_elementwise_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
