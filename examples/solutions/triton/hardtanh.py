# kjudge-case: task=level1/hardtanh expect=pass
"""HardTanh: clamp to [-1, 1]."""
import triton
import triton.language as tl


@triton.jit
def hardtanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(x, -1.0), 1.0), mask=mask)


def hardtanh(x, y, B: int, D: int) -> None:
    n = B * D
    if n:
        hardtanh_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
