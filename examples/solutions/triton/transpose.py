# kjudge-case: task=level1/transpose expect=pass
"""Batched transpose y[b] = x[b]^T through 64x64 tiles: read rows of x,
write rows of y (tl.trans lets the compiler stage the tile)."""
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(2).to(tl.int64)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    tile = tl.load(x_ptr + b * M * N + rm[:, None].to(tl.int64) * N + rn[None, :],
                   mask=(rm[:, None] < M) & (rn[None, :] < N), other=0.0)
    tl.store(y_ptr + b * M * N + rn[:, None].to(tl.int64) * M + rm[None, :], tl.trans(tile),
             mask=(rn[:, None] < N) & (rm[None, :] < M))


def transpose(x, y, B: int, M: int, N: int) -> None:
    if B == 0 or M == 0 or N == 0:
        return
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), B)
    transpose_kernel[grid](x, y, M, N, BM=64, BN=64, num_warps=4)
