# kjudge-case: task=level1/relu expect=runtime_error
"""Red team, class 15 (escaping the worker), Triton track: an honest kernel
that also runs a shell command (os.system) in every call, hoping to leave a
process behind or to reach something outside the timed process.  Since issue
21 the static check lets os.system through: the timed process runs under the
sandbox's seccomp filter, which refuses the fork and the exec (os.system
returns -1, nothing starts), and the worker's audit hook names the attempt,
so the call fails with a runtime_error.
Expected reason: blocked by the sandbox: os.system('true') at candidate.py:28"""
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
    n = B * D
    if n == 0:
        return
    os.system("true")
    relu_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
