# kjudge-case: task=level1/matrix_scalar_mul expect=pass
"""KernelBench level 1 #5 (matrix times the scalar 3.14) as ModelNew."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matrix_scalar_mul_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 3.14, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            matrix_scalar_mul_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
        return y
