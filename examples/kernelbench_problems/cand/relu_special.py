# kjudge-case: problem=level1/1_relu expect=mismatch
"""Defective: specialises on the problem's own get_inputs values: it
replays the answer for the tensor get_inputs draws under KernelBench's
seed, which is what KernelBench's own evaluator would feed it first."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(42)
        self.answer = torch.relu(torch.randn(64, 8191)).cuda()

    def forward(self, x):
        return self.answer.clone()
