# kjudge-case: task=level1/layer_norm expect=pass
"""LayerNorm with weight and bias in KernelBench's format: nn.LayerNorm's
two parameters (weight, then bias) receive the task's params w and b, in
that order; forward normalises each row with one Triton program."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, D, eps, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * D
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + offs, mask=offs < D, other=0.0)
    mean = tl.sum(acc, 0) / D
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < D, other=0.0)
        d = tl.where(offs < D, x - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, 0) / D + eps)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < D
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + offs, mask=mask, other=0.0)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0)
        tl.store(y_ptr + base + offs, (x - mean) * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: int = 1):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape, eps=1e-5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        D = x.shape[-1]
        rows = x.numel() // D if D else 0
        y = torch.empty_like(x)
        if rows:
            block = min(4096, max(32, triton.next_power_of_2(D)))
            layer_norm_kernel[(rows,)](x, self.ln.weight, self.ln.bias, y, D, 1e-5, BLOCK=block,
                                       num_warps=8 if block >= 2048 else 4)
        return y
