# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 8, Triton track: getattr with a string reaches torch's
private C module (and from there the dispatch stack the fallback counter
lives on).  getattr and private attributes are rejected statically."""
import torch


def relu(x, y, B: int, D: int) -> None:
    c = getattr(torch, "_C")
    with c._DisableTorchDispatch():
        y.copy_(x.clamp(min=0))
