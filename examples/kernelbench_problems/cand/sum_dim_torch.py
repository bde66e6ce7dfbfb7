# kjudge-case: problem=level1/5_sum_dim expect=pass flag=fallback
"""Honest (plain torch): the int init argument is the dimension."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.sum(x, dim=self.dim, keepdim=True)
