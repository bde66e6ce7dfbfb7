# kjudge-case: task=level1/mse_loss expect=pass
"""MSE loss (mean): each program sums squared differences over its chunk
into a float64 partial, a second one-program kernel adds the partials and
divides.  Deterministic (no atomics); float64 accumulation keeps the
task's 1e-5 tolerance at half a billion elements."""
import torch
import triton
import triton.language as tl


@triton.jit
def partial_kernel(p_ptr, t_ptr, part_ptr, n, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], tl.float64)
    for start in range(0, CHUNK, BLOCK):
        offs = pid * CHUNK + start + tl.arange(0, BLOCK)
        mask = offs < n
        d = tl.load(p_ptr + offs, mask=mask, other=0.0) - tl.load(t_ptr + offs, mask=mask, other=0.0)
        acc += (d * d).to(tl.float64)
    tl.store(part_ptr + pid, tl.sum(acc, 0))


@triton.jit
def final_kernel(part_ptr, out_ptr, nparts, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float64)
    for start in range(0, nparts, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + offs, mask=offs < nparts, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, 0) / n).to(tl.float32))


def mse_loss(pred, target, loss, B: int, D: int) -> None:
    n = B * D
    CHUNK = 65536
    nparts = max(1, triton.cdiv(n, CHUNK))
    part = torch.empty(nparts, dtype=torch.float64, device=pred.device)
    partial_kernel[(nparts,)](pred, target, part, n, CHUNK=CHUNK, BLOCK=1024, num_warps=4)
    final_kernel[(1,)](part, loss, nparts, n, BLOCK=1024, num_warps=4)
