# kjudge-case: problem=level1/3_batchnorm_train expect=pass flag=fallback
"""Honest (plain torch): BatchNorm2d in training mode, as the problem's."""
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features)

    def forward(self, x):
        return self.bn(x)
