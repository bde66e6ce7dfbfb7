# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 8, Triton track: freezes the host clock a harness would
read (time.perf_counter_ns).  Importing time is outside the allowed
modules: rejected before anything runs."""
import time

time.perf_counter_ns = lambda: 0


def relu(x, y, B: int, D: int) -> None:
    pass
