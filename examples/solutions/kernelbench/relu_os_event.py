# kjudge-case: task=level1/relu expect=pass
"""KernelBench level 1 #19 (ReLU) written the way many published generations
are: it imports os to set a build variable, turns on cuDNN's autotuner and
waits for its kernel with a CUDA event.  None of it is a hack: the judge's
worker times with its own events, bound before this file is imported, the
environment is the sandbox's, and a torch.backends flag changes only how
torch's own operators run in this process.  Its `__main__` block, a check of
its own, never runs in the judge.  The static check passes it (issue 21); the
kernel is relu.py's."""
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl

os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = False


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = int(os.getenv("RELU_BLOCK", "4096"))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            relu_kernel[(triton.cdiv(n, self.block),)](x, y, n, BLOCK=self.block, num_warps=8)
        done = torch.cuda.Event()
        done.record()
        done.synchronize()
        return y


if __name__ == "__main__":
    # a generation's own check, never run by the judge (it imports this file
    # as a module), so not held to the policy: sys, argparse, its own timer
    import argparse
    import sys

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 20)
    n = ap.parse_args().n
    x = torch.randn(n, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    y = ModelNew()(x)
    end.record()
    end.synchronize()
    ok = torch.equal(y, torch.relu(x))
    print("relu: %s, %.3f ms" % ("ok" if ok else "WRONG", start.elapsed_time(end)))
    sys.exit(0 if ok else 1)
