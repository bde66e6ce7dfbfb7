# kjudge-case: problem=level1/2_linear expect=mismatch
"""Defective: a precision downgrade: the GEMM in float16."""
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc.half()(x.half()).float()
