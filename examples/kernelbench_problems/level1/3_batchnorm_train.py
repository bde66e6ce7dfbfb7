"""kjudge's own test problem in KernelBench's format: BatchNorm2d left in
training mode (the module's own mode: batch statistics, not the running
ones), as KernelBench's problems leave it."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(x)


batch_size = 16
features = 32
height = 63
width = 65


def get_inputs():
    return [torch.randn(batch_size, features, height, width)]


def get_init_inputs():
    return [features]
