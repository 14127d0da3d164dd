"""A user's model with the common problems, for ``python -m snippets.diagnose`` to find."""

from __future__ import annotations

# --8<-- [start:model]
import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self, d: int = 256) -> None:
        super().__init__()
        self.embed = nn.Sequential(
            nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d)
        )
        self.head = nn.Sequential(
            nn.LayerNorm(d), nn.Linear(d, d), nn.GELU(), nn.Linear(d, 1)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        print("batch", h.shape[0])  # logging in the hot path
        if h.mean() > 0:  # a branch on a tensor's value
            h = h * 2
        return self.head(h)
# --8<-- [end:model]


def scorer(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return Scorer(), torch.randn(batch_size, 256)
