# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 8 (timer tampering) past the static check, Triton track:
the static check allows attribute assignment on `self` (a KernelBench
module's own fields), so a function whose first parameter is named self
patches whatever it is given: here torch.cuda.synchronize, which a harness
timing with host clocks would rely on, during the call.  The worker compares the functions it relies on with references
taken before the import after every call: rejected."""
import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=offs < n)


def patch(self):
    self.synchronize = lambda device=None: None


def relu(x, y, B: int, D: int) -> None:
    patch(torch.cuda)
    if B * D:
        relu_kernel[(triton.cdiv(B * D, 1024),)](x, y, B * D, BLOCK=1024)
