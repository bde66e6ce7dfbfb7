# kjudge-case: problem=level1/3_batchnorm_train expect=mismatch
"""Defective: switches the module to eval mode (running statistics), which
the problem does not do."""
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features).eval()

    def forward(self, x):
        return self.bn(x)
