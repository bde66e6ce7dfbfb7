# kjudge-case: task=level1/relu expect=pass
"""ReLU that computes nothing when it finds a folder a_leaves_folders.py left
(tests/gpu/t52_py_prewarm.sh): a mismatch would mean that one candidate's
worker saw what the previous one wrote."""
import os

import triton
import triton.language as tl

SEEN = any(os.path.exists(os.path.join(where, "kj_left_by_a"))
           for where in (os.getcwd(), os.environ.get("TRITON_CACHE_DIR", os.getcwd())))


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


def relu(x, y, B: int, D: int) -> None:
    n = B * D
    if n == 0 or SEEN:
        return
    BLOCK = 4096
    relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
