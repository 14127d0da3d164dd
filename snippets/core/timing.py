"""Timing a first call: the part of the measurement core the Benchmark page shows whole."""

from __future__ import annotations

# --8<-- [start:first_call]
import math
import time
from collections.abc import Callable

import torch


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class Stopwatch:
    """Wall time of a block of device work, synchronized at both ends so
    queued kernels count.

    ``seconds`` is set when the block ends, also when it raised: a call that
    failed while compiling still took that long.
    """

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


def time_first_call(
    fn: Callable[[], object], device: torch.device
) -> tuple[object, float]:
    """``(output, seconds)`` of one call: the first call of a compiled model
    is its compile, which is what a caller waits for, so it is timed whole and
    apart from the steady state."""
    with Stopwatch(device) as watch:
        out = fn()
    return out, watch.seconds
# --8<-- [end:first_call]
