# kjudge-case: task=level1/leaky_relu expect=pass
"""LeakyReLU, negative slope 0.01."""
import triton
import triton.language as tl


@triton.jit
def leaky_relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, x * 0.01), mask=mask)


def leaky_relu(x, y, B: int, D: int) -> None:
    n = B * D
    if n:
        leaky_relu_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
