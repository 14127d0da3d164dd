"""Small models whose breaks and recompiles are known, for the diagnosis to find."""

from __future__ import annotations

import torch
from torch import nn


class Branchy(nn.Module):
    """A data-dependent branch (one break, at the ``if``) and nothing else in the way."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.a(x)
        if h.sum() > 0:  # BREAK_LINE
            h = h.relu()
        return self.b(h)


class Clean(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.a(x).relu()


def branchy(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return Branchy(), torch.randn(batch_size, 8)


def clean(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return Clean(), torch.randn(batch_size, 8)


def encoder(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    """Two of torch.nn's encoder layers: in eval without grad, each is one fused native op."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True)
    return (nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False),
            torch.randn(batch_size, 4, 16))


def wrong(batch_size: int) -> nn.Module:
    return Clean()


def not_callable_attr() -> None:
    pass


NOT_A_FACTORY = 3
