# kjudge-case: task=level1/sum_dim expect=pass
"""Sum over dim 1 of x[B, M, N], keepdim: one program per (batch, block of
64 columns) walking down M in tiles of 64 rows, column sums in registers."""
import triton
import triton.language as tl


@triton.jit
def sum_dim_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rm = tl.arange(0, BM)
    acc = tl.zeros([BM, BN], tl.float32)
    base = x_ptr + b * M * N
    for start in range(0, M, BM):
        rows = start + rm
        acc += tl.load(base + rows[:, None].to(tl.int64) * N + rn[None, :],
                       mask=(rows[:, None] < M) & (rn[None, :] < N), other=0.0)
    tl.store(y_ptr + b * N + rn, tl.sum(acc, 0), mask=rn < N)


def sum_dim(x, y, B: int, M: int, N: int) -> None:
    if B == 0 or N == 0:
        return
    BN = 64
    sum_dim_kernel[(B, triton.cdiv(N, BN))](x, y, M, N, BM=64, BN=BN, num_warps=4)
