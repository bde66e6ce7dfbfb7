# kjudge-case: task=level1/relu expect=pass flag=fallback
"""Red team, class 9, Triton track: the fallback hidden in tensor methods,
which a static check cannot resolve (x is a parameter, not the torch
module).  The worker's dispatch mode counts aten.clamp_min and aten.copy_
during the call: flagged fallback."""


def relu(x, y, B: int, D: int) -> None:
    y.copy_(x.clamp(min=0))
