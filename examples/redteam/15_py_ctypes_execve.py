# kjudge-case: task=level1/relu expect=runtime_error
"""Red team, class 15 (escaping the worker), Triton track: calls libc's
execve directly through ctypes (no subprocess, no os), replacing the worker
with a shell that could answer the judge.  ctypes passes the static check
since issue 21 (it calls C, as load_inline's C++ does); the seccomp filter
refuses execve with EPERM (the call returns -1 and the worker lives on), and
the worker's audit hook names the lookup: runtime_error.
Expected reason: blocked by the sandbox: ctypes lookup of execve at candidate.py:25"""
import ctypes

import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


def relu(x, y, B: int, D: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    execve = libc.execve
    argv = (ctypes.c_char_p * 3)(b"/bin/sh", b"-c", None)
    execve(b"/bin/sh", argv, None)
    n = B * D
    if n:
        relu_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
