"""kjudge's own test problem in KernelBench's format (not a KernelBench
file): an elementwise ReLU."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 64
dim = 8191


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
