# kjudge-case: task=level1/relu expect=rejected
"""Red team, class 15 (escaping the worker), Triton track: reaches os
through torch's own reference to it (torch.os.system) to start a process
that outlives the call.  The static check rejects a module reached through
another one, with its line: what is reached that way cannot be resolved (the
same route leads to torch.sys.modules and the worker's objects).  Had it
passed, the seccomp filter of the timed process would refuse the fork and
exec (examples/redteam/15_py_os_system.py)."""
import torch


def relu(x, y, B: int, D: int) -> None:
    torch.os.system("sleep 60 &")
    y.copy_(x)
