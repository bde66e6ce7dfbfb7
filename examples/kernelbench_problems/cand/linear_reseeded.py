# kjudge-case: problem=level1/2_linear expect=mismatch
"""Defective: ignores the seed: initialises its weights under a seed of its
own, so they differ from the problem's Model's."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        torch.manual_seed(1234)
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc(x)
