"""A stopwatch for blocks of device work: the harness's first-call timer, for a ``with`` block."""

from __future__ import annotations

import math
import time

import torch

from snippets.core.harness import synchronize


class Stopwatch:
    """Wall time of a block, synchronized at both ends; set also when it raised (a failed
    compile still took that long)."""

    def __init__(self, device: torch.device) -> None:
        self.device, self.seconds = device, math.nan

    def __enter__(self):
        synchronize(self.device)
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        # After an error the device may be unusable: do not wait on it.
        if exc[0] is None:
            synchronize(self.device)
        self.seconds = time.perf_counter() - self._t0
