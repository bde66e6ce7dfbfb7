# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 8 (timer tampering), Triton track: replaces
torch.cuda.Event.elapsed_time so that any harness timing with torch events
reads one microsecond.  kjudge's worker times with CUDA events it bound
before the candidate was imported, and the static check rejects assigning to
attributes of modules or classes (monkeypatching)."""
import torch
import triton
import triton.language as tl

torch.cuda.Event.elapsed_time = lambda self, other: 0.001


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=offs < n)


def relu(x, y, B: int, D: int) -> None:
    relu_kernel[(triton.cdiv(B * D, 1024),)](x, y, B * D, BLOCK=1024)
