# kjudge-case: task=level1/relu expect=compile_error
"""Broken, Triton track: a Python syntax error.  The static check parses
the file before anything runs and names the line."""
import triton


def relu(x, y, B: int, D: int) -> None
    pass
