# kjudge-case: task=level1/relu expect=mismatch
"""Red team, class 4 (caching across calls), Triton track: computes once per
shape, keeps the result and replays it with a copy kernel afterwards.  The
judge draws new inputs for every call (every seed, every timed call), so the
replay is wrong from the second call on: mismatch."""
import torch
import triton
import triton.language as tl

CACHE = {}


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=offs < n)


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


def relu(x, y, B: int, D: int) -> None:
    n = B * D
    if n == 0:
        return
    grid = (triton.cdiv(n, 1024),)
    key = (B, D)
    if key not in CACHE:
        keep = torch.empty_like(y)
        relu_kernel[grid](x, keep, n, BLOCK=1024)
        CACHE[key] = keep
    copy_kernel[grid](CACHE[key], y, n, BLOCK=1024)
