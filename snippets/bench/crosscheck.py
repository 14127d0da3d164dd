"""The harness checked against two timers that share nothing with it.

After the harness has timed a group's variants in its interleaved rounds, the very same callables
(the same compiled modules, inputs and CUDA graphs) are timed again, one variant after another:

- by ``torch.utils.benchmark.Timer.blocked_autorange``, PyTorch's own timer: it picks its block
  size, and on CUDA its clock synchronizes the device at each reading;
- by a plain wall clock: ``time.perf_counter`` around ``calls`` back-to-back calls and a device
  synchronize, repeated.

Where the three agree, the harness's CUDA events measure what a caller feels. Where they do not,
the difference is the finding: the harness's rounds interleave the variants, these do not.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch

from snippets.core import measure

# How long each independent timer runs per variant: long enough for blocked_autorange to settle
# on a block size at batch 1 (thousands of calls), short enough to leave the run's length alone.
MIN_RUN_S = 1.0
WALL_REPEATS = 15
AGREE_WITHIN = 0.03  # the bar for the CUDA-graph rows: 3 %


def timer_ms(fn: Callable[[], object],
             min_run_s: float | None = None) -> tuple[measure.Measurement, int]:
    """Per-call milliseconds from ``blocked_autorange``, one sample per block, and the number of
    calls in its blocks (it picks them: enough for a block to last about a thousandth of
    ``min_run_s``)."""
    from torch.utils import benchmark

    m = benchmark.Timer(stmt="fn()", globals={"fn": fn}).blocked_autorange(
        min_run_time=MIN_RUN_S if min_run_s is None else min_run_s)
    return measure.Measurement(tuple(t * 1e3 for t in m.times)), int(m.number_per_run)


def timer_blocks_ms(fn: Callable[[], object], calls: int, repeats: int = WALL_REPEATS,
                    num_threads: int = 1) -> measure.Measurement:
    """The same Timer made to run blocks of ``calls`` calls, as long as the harness's samples:
    if this agrees with the harness where ``blocked_autorange`` does not, the difference is the
    block length (a device left idle between short blocks), not the clock. The Timer sets
    torch's intra-op threads to ``num_threads`` while it runs (its default is one, whatever the
    process had); given the harness's count, what is left of a gap is the Timer's own."""
    from torch.utils import benchmark

    timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=num_threads)
    return measure.Measurement(tuple(timer.timeit(calls).median * 1e3 for _ in range(repeats)))


def wall_ms(fn: Callable[[], object], device: torch.device, calls: int,
            repeats: int = WALL_REPEATS) -> measure.Measurement:
    """Per-call milliseconds from a wall clock around ``calls`` calls and a synchronize."""
    samples = []
    for _ in range(repeats):
        measure.synchronize(device)
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        measure.synchronize(device)
        samples.append((time.perf_counter() - t0) * 1e3 / calls)
    return measure.Measurement(tuple(samples))


def check(fns: dict[str, Callable[[], object]], device: torch.device,
          calls: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Every independent timing of every variant, as the ``crosscheck`` field of its row."""
    out = {}
    threads = torch.get_num_threads()  # what the harness ran with
    for mode, fn in fns.items():
        auto, block = timer_ms(fn)
        out[mode] = {"timer_ms": auto.as_dict(), "timer_block_calls": block,
                     "timer_harness_blocks_ms": timer_blocks_ms(fn, calls[mode]).as_dict(),
                     "timer_harness_threads_ms": timer_blocks_ms(
                         fn, calls[mode], num_threads=threads).as_dict(),
                     "harness_threads": threads, "harness_block_calls": calls[mode],
                     "wall_ms": wall_ms(fn, device, calls[mode]).as_dict()}
    return out


def ratios(row: dict[str, Any]) -> tuple[float, float] | None:
    """(Timer / harness, wall clock / harness) of a row's medians; None without a cross-check."""
    other, mine = row.get("crosscheck"), row.get("latency_ms")
    if not other or not mine:
        return None
    return (other["timer_ms"]["median"] / mine["median"],
            other["wall_ms"]["median"] / mine["median"])
