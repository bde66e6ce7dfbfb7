# kjudge-case: task=level1/relu expect=runtime_error
"""Red team, class 15 (escaping the worker), Triton track: opens an AF_INET
socket in the call to reach a helper on the network (or the judge's host).
socket passes the static check since issue 21; the jail has no route out
(its own network namespace), and the seccomp filter refuses any socket but
AF_UNIX before it exists (EPERM: PermissionError at the candidate's line):
runtime_error naming the socket.
Expected reason: blocked by the sandbox: socket.socket(family=2) at candidate.py:25"""
import socket

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
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(1)
    s.connect(("10.0.0.1", 80))
    if n:
        relu_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
