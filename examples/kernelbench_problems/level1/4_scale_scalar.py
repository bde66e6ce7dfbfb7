"""kjudge's own test problem in KernelBench's format: a scalar among
get_inputs' values (passed to forward as the problem gives it)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, s: float) -> torch.Tensor:
        return x * s


M = 1024
N = 4099


def get_inputs():
    return [torch.randn(M, N), 3.5]


def get_init_inputs():
    return []
