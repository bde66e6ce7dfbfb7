# kjudge-case: task=level1/matmul_square expect=pass
"""C = A @ B in float32 with IEEE products (tl.dot's default TF32 errs by
~3e-2 and misses the task's tolerance): 64x64 tiles, grouped launch order
so neighbouring programs share rows of A in the L2."""
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    per_group = GROUP * num_n
    first_m = (pid // per_group) * GROUP
    gsz = tl.minimum(num_m - first_m, GROUP)
    pid_m = first_m + (pid % per_group) % gsz
    pid_n = (pid % per_group) // gsz
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        kk = k + rk
        a = tl.load(a_ptr + rm[:, None].to(tl.int64) * K + kk[None, :],
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None].to(tl.int64) * N + rn[None, :],
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_square(a, b, c, N: int) -> None:
    if N == 0:
        return
    BM, BN, BK = 64, 64, 32
    grid = (triton.cdiv(N, BM) * triton.cdiv(N, BN),)
    mm_kernel[grid](a, b, c, N, N, N, BM=BM, BN=BN, BK=BK, GROUP=8, num_warps=4, num_stages=3)
