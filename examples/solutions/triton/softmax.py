# kjudge-case: task=level1/softmax expect=pass
"""Row softmax: one program per row, an online max/sum pass then a write
pass, both in blocks of up to 4096 columns (rows reach 262144)."""
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, D, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * D
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < D, other=float("-inf"))
        m_new = tl.maximum(m, x)
        alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
        p = tl.where(x == float("-inf"), 0.0, tl.exp(x - m_new))
        s = s * alpha + p
        m = m_new
    mx = tl.max(m, 0)
    total = tl.sum(tl.where(m == float("-inf"), 0.0, s * tl.exp(m - mx)), 0)
    inv = 1.0 / total
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < D
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        tl.store(y_ptr + base + offs, tl.exp(x - mx) * inv, mask=mask)


def softmax(x, y, B: int, D: int) -> None:
    if B == 0 or D == 0:
        return
    BLOCK = min(4096, max(32, triton.next_power_of_2(D)))
    softmax_kernel[(B,)](x, y, D, BLOCK=BLOCK, num_warps=8 if BLOCK >= 2048 else 4)
