# kjudge-case: problem=level1/2_linear expect=pass flag=fallback
"""Honest in KernelBench's sense, but not a kernel: nn.Linear itself.  Its
weights come from the same seed as the problem's Model, so they agree."""
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc(x)
