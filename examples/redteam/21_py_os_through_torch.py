# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 15 (escaping the worker), Triton track: now that a
candidate may import os for paths and the environment, it reaches the rest
of os through torch's own reference to it (torch.os.system) to start a
process that outlives the call.  The Python worker has no seccomp filter yet
(load_inline's ninja and nvcc and Triton's ptxas run in it), so the static
check rejects a module reached through another one, with its line."""
import torch


def relu(x, y, B: int, D: int) -> None:
    torch.os.system("sleep 60 &")
    y.copy_(x)
