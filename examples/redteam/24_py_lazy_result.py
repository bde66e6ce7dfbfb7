# kjudge-case: task=level1/relu expect=runtime_error
"""Red team, class 17 (lazy result), KernelBench track: forward returns a
tensor subclass instead of a computed tensor, hoping the harness copies it
through code the candidate controls.  The worker takes only plain
torch.Tensor results of the output's exact shape and dtype."""
import torch
import torch.nn as nn


class Lazy(torch.Tensor):
    pass


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.as_subclass(Lazy)
