# kjudge-case: task=level1/relu expect=compile_error
"""Broken, Triton track: the kernel uses a name it never defined.  Triton
compiles at the first call, in the worker; its CompilationError becomes the
verdict compile_error with the kernel's line."""
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.where(x > 0, x, zero), mask=offs < n)


def relu(x, y, B: int, D: int) -> None:
    relu_kernel[(triton.cdiv(B * D, 1024),)](x, y, B * D, BLOCK=1024)
