"""kjudge's own test problem in KernelBench's format: nn.Linear with a bias,
its weights drawn by torch under the problem's seed (the candidate's must
agree: both modules are built right after torch.manual_seed(42))."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


batch_size = 256
in_features = 1024
out_features = 768


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
