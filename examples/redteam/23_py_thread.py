# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 7 (work after return), Triton track: a host thread
finishes the output after the call returned, outside the timed interval.
threading is not an allowed import."""
import threading

import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=offs < n)


def relu(x, y, B: int, D: int) -> None:
    t = threading.Thread(target=lambda: relu_kernel[(triton.cdiv(B * D, 1024),)](x, y, B * D, BLOCK=1024))
    t.start()
