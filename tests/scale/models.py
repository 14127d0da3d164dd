"""Models for the scale tests: a small residual MLP whose compile is quick on two cores and whose
weights (3 MB) fill more than one 1 MB DDP bucket, and two that fail on purpose on one rank.

Every rank imports this module by name (``--model tests.scale.models:mlp``), as a user's own
model is passed.
"""

from __future__ import annotations

import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

WIDTH, CLASSES = 256, 1000


class Residual(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up, self.down = nn.Linear(WIDTH, 2 * WIDTH), nn.Linear(2 * WIDTH, WIDTH)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(F.relu(self.up(x)))


class MLP(nn.Module):
    """Two residual blocks in a ModuleList (the blocks FSDP2 shards) and a 1000-class head."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList([Residual(), Residual()])
        self.head = nn.Linear(WIDTH, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def mlp(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    return MLP(), torch.randn(batch_size, WIDTH)


def _rank() -> int:
    return dist.get_rank() if dist.is_initialized() else 0


class _FailsOnRank1(MLP):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if _rank() == 1:
            raise RuntimeError("planted failure on rank 1")
        return super().forward(x)


class _HangsOnRank1(MLP):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if _rank() == 1:
            time.sleep(3600)  # rank 0 waits for it in DDP's first gradient all-reduce
        return super().forward(x)


def fails_on_rank_1(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    return _FailsOnRank1(), torch.randn(batch_size, WIDTH)


def hangs_on_rank_1(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    return _HangsOnRank1(), torch.randn(batch_size, WIDTH)
