# kjudge-case: task=level1/matrix_scalar_mul expect=pass
"""C = A * 3.14 (KernelBench L1 #5)."""
import triton
import triton.language as tl


@triton.jit
def matrix_scalar_mul_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 3.14, mask=mask)


def matrix_scalar_mul(x, y, B: int, D: int) -> None:
    n = B * D
    if n:
        matrix_scalar_mul_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
