# kjudge-case: task=level1/softmax expect=pass
"""KernelBench level 1 #23 (Softmax): one Triton program per row, online
max and sum, then the write pass."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, D, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * D
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < D, other=float("-inf"))
        m_new = tl.maximum(m, x)
        alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
        p = tl.where(x == float("-inf"), 0.0, tl.exp(x - m_new))
        s = s * alpha + p
        m = m_new
    mx = tl.max(m, 0)
    inv = 1.0 / tl.sum(tl.where(m == float("-inf"), 0.0, s * tl.exp(m - mx)), 0)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < D
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        tl.store(y_ptr + base + offs, tl.exp(x - mx) * inv, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, D = x.shape
        y = torch.empty_like(x)
        if B and D:
            block = min(4096, max(32, triton.next_power_of_2(D)))
            softmax_kernel[(B,)](x, y, D, BLOCK=block, num_warps=8 if block >= 2048 else 4)
        return y
