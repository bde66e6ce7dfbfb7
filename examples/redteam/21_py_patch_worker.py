# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 8, Triton track: reaches the worker through sys.modules
and replaces its reply function to report zero times.  sys is not an
allowed import; had it been reached another way, the worker's own
references (bound before the import) and its tamper check after each call
remain."""
import sys

sys.modules["__main__"].STRUCTS = {}


def relu(x, y, B: int, D: int) -> None:
    pass
