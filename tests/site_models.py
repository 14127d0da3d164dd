"""A model small enough to benchmark in seconds, for tests that need a real results file."""

from __future__ import annotations

import torch
from torch import nn


def mlp(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    """Two linear layers: compiles in seconds on a CPU, and Inductor fuses the activation."""
    model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64))
    return model, torch.randn(batch_size, 64)
