# kjudge-case: task=level1/relu expect=runtime_error
"""Red team, class 15 (ending the worker), Triton track: raises SystemExit
in the call, hoping the worker exits cleanly and the judge reads a stale
buffer.  The worker catches BaseException: the call fails with the name."""


def relu(x, y, B: int, D: int) -> None:
    raise SystemExit(0)
