# kjudge-case: task=level1/relu expect=mismatch
"""Red team, class 1 (no-op), Triton track: does nothing, betting that the
output still holds an earlier answer.  Outputs are pre-filled with NaN
before every call: mismatch."""


def relu(x, y, B: int, D: int) -> None:
    return None
