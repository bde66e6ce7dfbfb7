# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 6 (work on another stream), Triton track: launches on a
stream of its own, so events on the judge's stream see nothing.  Creating
streams is rejected statically (and the device-wide sync bound would flag a
timing gap, as on the CUDA track)."""
import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=offs < n)


SIDE = torch.cuda.Stream()


def relu(x, y, B: int, D: int) -> None:
    with torch.cuda.stream(SIDE):
        relu_kernel[(triton.cdiv(B * D, 1024),)](x, y, B * D, BLOCK=1024)
