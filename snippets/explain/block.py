"""The block every graph-break example is written on, and the routine that stands for code Dynamo
cannot see into. They live apart from ``breaks``, where the examples are, so that importing them
registers none of the examples' custom ops: each example's shown code imports them from here."""

from __future__ import annotations

# --8<-- [start:Block]
import torch
import torch.nn.functional as F
from torch import nn

WIDTH = 256  # a block costs microseconds, so the cost of a break shows


class Block(nn.Module):
    """Up-projection, GELU, down-projection; subclasses put their cause in
    ``middle``."""

    def __init__(self) -> None:
        super().__init__()
        self.up = nn.Linear(WIDTH, 4 * WIDTH)
        self.down = nn.Linear(4 * WIDTH, WIDTH)

    def middle(self, h: torch.Tensor) -> torch.Tensor:
        return h

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(self.middle(F.gelu(self.up(x))))
# --8<-- [end:Block]


# --8<-- [start:vendor]
KNOTS_X, KNOTS_Y = (-3.0, 0.0, 3.0), (0.0, 0.5, 1.0)


def vendor_calibrate(a):
    """Stands for any routine Dynamo cannot see into (a C extension, say)."""
    import numpy as np
    return np.interp(a, KNOTS_X, KNOTS_Y).astype(a.dtype)
# --8<-- [end:vendor]
