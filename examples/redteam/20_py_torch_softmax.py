# kjudge-case: task=level1/softmax expect=pass flag=fallback
"""Red team, class 9 (library fallback), Triton track: no kernel at all,
torch.softmax does the work.  Correct, but not a kernel: the static check
sees the torch call and the worker counts the aten operators it runs, so
the verdict is flagged fallback (rejected under --policy strict)."""
import torch


def softmax(x, y, B: int, D: int) -> None:
    y.copy_(torch.softmax(x, dim=-1))
