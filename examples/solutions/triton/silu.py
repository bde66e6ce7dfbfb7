# kjudge-case: task=level1/silu expect=pass
"""SiLU: x * sigmoid(x) as x / (1 + exp(-x)); exp overflows to inf for very
negative x, and x / inf is the right limit (-0)."""
import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x / (1.0 + tl.exp(-x)), mask=mask)


def silu(x, y, B: int, D: int) -> None:
    n = B * D
    if n:
        silu_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
