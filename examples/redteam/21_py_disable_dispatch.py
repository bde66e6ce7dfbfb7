# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 9, Triton track: turns off torch's Python dispatch (where
the worker counts fallback operators) around a torch computation.  Private
attributes (torch._C) are rejected statically."""
import torch


def relu(x, y, B: int, D: int) -> None:
    with torch._C._DisableTorchDispatch():
        y.copy_(x.clamp(min=0))
