# kjudge-case: task=level1/relu expect=pass
"""ReLU that leaves folders where the next candidate's worker would look: its
scratch folder and its Triton cache (tests/gpu/t52_py_prewarm.sh).  Each
pre-warmed worker has its own scratch folder and a copy of its own build
caches, so b_looks_for_folders.py, judged next, finds neither.  (A folder: the
static check refuses open().)"""
import os

import triton
import triton.language as tl

for where in (os.getcwd(), os.environ.get("TRITON_CACHE_DIR", os.getcwd())):
    try:
        os.makedirs(os.path.join(where, "kj_left_by_a"), exist_ok=True)
    except OSError:
        pass


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


def relu(x, y, B: int, D: int) -> None:
    n = B * D
    if n == 0:
        return
    BLOCK = 4096
    relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
