# kjudge-case: task=level1/relu expect=runtime_error
"""Red team, class 15 (escaping the worker), Triton track: forks in the call
(os.fork), so that a child outlives the timed interval and finishes or
replays work behind the judge's back.  os.fork passes the static check since
issue 21; the seccomp filter refuses the clone without CLONE_THREAD (EPERM:
PermissionError at the candidate's line), and the worker names the attempt:
runtime_error.
Expected reason: blocked by the sandbox: os.fork() at candidate.py:24"""
import os

import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


def relu(x, y, B: int, D: int) -> None:
    pid = os.fork()
    n = B * D
    if n and pid != 0:
        relu_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
