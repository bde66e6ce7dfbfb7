# kjudge-case: task=level1/linear expect=pass
"""nn.Linear in KernelBench's format with the initialisation KernelBench's
generations copy from torch.nn.Linear.reset_parameters: nn.init's
kaiming_uniform_ and its private helper _calculate_fan_in_and_fan_out.  The
judge replaces the parameters' data with the task's before every call, so
the initialisation never reaches a verdict, and nn.init's helpers are not a
hack: the static check passes them (issue 21).  The kernel is linear.py's."""
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        kk = k + rk
        a = tl.load(x_ptr + rm[:, None].to(tl.int64) * K + kk[None, :],
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        wt = tl.load(w_ptr + rn[None, :].to(tl.int64) * K + kk[:, None],
                     mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, wt, input_precision="ieee")
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    acc += bias[None, :]
    tl.store(y_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features: int = 1, out_features: int = 1):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        fan_in, _ = nn.init._calculate_fan_in_and_fan_out(self.weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        M, K = x.shape
        N = self.weight.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        if M and N:
            grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
            linear_kernel[grid](x, self.weight, self.bias, y, M, N, K, BM=64, BN=64, BK=32,
                                num_warps=4, num_stages=3)
        return y
