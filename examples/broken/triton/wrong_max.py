# kjudge-case: task=level1/softmax expect=mismatch
"""Broken, Triton track: softmax without subtracting the row maximum.  The
outlier draws (x50) overflow exp in float32: mismatch on the outlier seed."""
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, D, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * D
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < D, other=float("-inf"))
        s += tl.exp(x)
    total = tl.sum(s, 0)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < D, other=0.0)
        tl.store(y_ptr + base + offs, tl.exp(x) / total, mask=offs < D)


def softmax(x, y, B: int, D: int) -> None:
    BLOCK = min(4096, max(32, triton.next_power_of_2(D)))
    softmax_kernel[(B,)](x, y, D, BLOCK=BLOCK, num_warps=4)
