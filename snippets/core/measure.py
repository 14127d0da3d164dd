"""The measurement core: time callables, hold raw samples, compute robust statistics."""

from __future__ import annotations

import contextlib
import gc
import math
import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import torch

from snippets.core import machine

# The Benchmark page's harness owns the timers; every producer takes them through here.
from snippets.core.harness import rotated
from snippets.core.harness import synchronize as synchronize
from snippets.core.harness import time_calls as time_calls
from snippets.core.harness import time_first_call as time_first_call
from snippets.core.timing import Stopwatch as Stopwatch

# A row whose interquartile range exceeds this fraction of its median is flagged noisy: beyond 5 %
# two runs of the same configuration disagree by more than the effects this guide reports.
NOISY_IQR_RATIO = 0.05


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default method) of an already sorted sequence."""
    if not sorted_values:
        raise ValueError("quantile of no samples")
    pos = (len(sorted_values) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


@dataclass(frozen=True)
class Measurement:
    """Per-call latencies in milliseconds, one sample per timed round."""

    samples: tuple[float, ...]

    def as_dict(self) -> dict[str, Any]:
        """What a results file holds for one timed variant: the statistics and every sample."""
        return {"median": self.median, "iqr": self.iqr, "samples": list(self.samples)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Measurement:
        return cls(tuple(data["samples"]))

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def iqr(self) -> float:
        s = sorted(self.samples)
        return quantile(s, 0.75) - quantile(s, 0.25)

    @property
    def iqr_ratio(self) -> float:
        """IQR over median: the spread this guide uses to call a row noisy."""
        return self.iqr / self.median if self.median else math.inf

    @property
    def noisy(self) -> bool:
        return self.iqr_ratio > NOISY_IQR_RATIO


@dataclass(frozen=True)
class Ratio:
    """The ratio of medians, with the IQR of the per-round ratios: round *i* of both ran under
    the same machine state, so theirs is the honest spread."""

    value: float
    iqr: float


def speedup(base: Measurement, other: Measurement) -> Ratio:
    value = base.median / other.median
    paired = sorted(b / o for b, o in zip(base.samples, other.samples, strict=False))
    return Ratio(value=value, iqr=quantile(paired, 0.75) - quantile(paired, 0.25))


def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    """||out - ref|| / ||ref||, computed in float64 so the check itself adds no rounding."""
    out, ref = out.detach().double().cpu(), ref.detach().double().cpu()
    denom = torch.linalg.vector_norm(ref).item()
    diff = torch.linalg.vector_norm(out - ref).item()
    if not math.isfinite(diff):
        return math.inf
    return diff / denom if denom else diff


def calls_per_sample(per_call_ms: float, target_ms: float) -> int:
    """Calls that make a sample last about ``target_ms``: one short call is too short to time."""
    if per_call_ms <= 0:
        return 1
    return max(1, min(10_000, round(target_ms / per_call_ms)))


class HostGate:
    """Times the host CPU around every round; optionally re-measures rounds it ran slow in.

    A shared VM's host can halve its speed for seconds with no steal time showing, slowing
    host-bound calls but not graph replays. A canary of tiny dispatches runs around each round;
    one ``slowdown`` times slower than the best (above its jitter, below the twofold spells seen)
    is measured again, up to ``max_discard`` per kept round. Disabled (the benchmark's default:
    the spells outlasted that budget), it only records ``kept_us``."""

    def __init__(self, enabled: bool = True, slowdown: float = 1.5, max_discard: float = 1.0,
                 calls: int = 200) -> None:
        self.enabled, self.slowdown, self.max_discard = enabled, slowdown, max_discard
        self.calls = calls
        self.best_us = math.inf
        self.discarded = 0
        self.canary_us: list[float] = []
        self.kept_us: list[float] = []  # the slower of the two readings around each kept round
        self._t = torch.ones(4)

    def canary(self) -> float:
        t0 = time.perf_counter()
        for _ in range(self.calls):
            torch.add(self._t, self._t)
        us = (time.perf_counter() - t0) * 1e6
        self.best_us = min(self.best_us, us)
        self.canary_us.append(us)
        return us

    def admits(self, before: float, after: float, kept: int) -> bool:
        slow = max(before, after) > self.best_us * self.slowdown
        if self.enabled and slow and self.discarded < self.max_discard * max(kept, 1):
            self.discarded += 1
            return False
        # Kept: normal speed, gate off, or the host stayed slow past the re-measuring budget.
        self.kept_us.append(max(before, after))
        return True


# A variant's own state, set around each of its samples and outside the timed region.
Around = Callable[[str], AbstractContextManager]


def interleaved(
    fns: dict[str, Callable[[], object]],
    rounds: int,
    calls: dict[str, int],
    device: torch.device,
    warm_rounds: int = 0,
    after_round: Callable[[], None] = lambda: None,
    gate: HostGate | None = None,
    around: Around = lambda _: contextlib.nullcontext(),
) -> dict[str, Measurement]:
    """Time every callable once per round in rotated order (``harness.compare``), so a slow
    spell lands on all alike; ``warm_rounds`` are run, not kept; the GC is off, as ``timeit``
    does; ``around(name)`` is entered outside each of its samples."""
    names = list(fns)
    samples: dict[str, list[float]] = {name: [] for name in names}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        attempt, kept = 0, 0
        while kept < rounds:
            order = rotated(names, attempt)
            before = gate.canary() if gate else 0.0
            this_round = {}
            for n in order:
                with around(n):
                    this_round[n] = time_calls(fns[n], calls[n], device)
            after = gate.canary() if gate else 0.0
            after_round()
            attempt += 1
            warming = attempt <= warm_rounds
            if warming or (gate and not gate.admits(before, after, kept)):
                continue
            for name, ms in this_round.items():
                samples[name].append(ms)
            kept += 1
    finally:
        if gc_was_enabled:
            gc.enable()
    return {name: Measurement(tuple(s)) for name, s in samples.items()}


@dataclass(frozen=True)
class Timed:
    """What ``measure_variants`` found: a Measurement per variant and its calls per sample."""

    measurements: dict[str, Measurement]
    calls: dict[str, int]

    def __getitem__(self, name: str) -> Measurement:
        return self.measurements[name]


def measure_variants(
    fns: dict[str, Callable[[], object]],
    device: torch.device,
    *,
    rounds: int,
    sample_ms: float,
    warmup: int = 1,
    warm_rounds: int = 0,
    after_round: Callable[[], None] = lambda: None,
    gate: HostGate | None = None,
    around: Around = lambda _: contextlib.nullcontext(),
) -> Timed:
    """Every producer's timing: ``warmup`` calls of each variant, three more to size a sample
    of ``sample_ms``, then ``interleaved`` rounds; each inside ``around(name)``."""
    calls = {}
    for name, fn in fns.items():
        with around(name):
            for _ in range(warmup):
                fn()
            calls[name] = calls_per_sample(time_calls(fn, 3, device), sample_ms)
    timed = interleaved(fns, rounds, calls, device, warm_rounds, after_round, gate, around)
    return Timed(timed, calls)


def matmul_peak_tflops(device: torch.device, n: int = 8192, reps: int = 10) -> float:
    """Measured bf16 TFLOP/s of a large matmul: the peak the benchmark's figures are against."""
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    ms = time_calls(lambda: a @ b, reps, device)
    return 2 * n**3 / (ms * 1e-3) / 1e12


def graph_pool_mb(device: torch.device) -> float | None:
    """MiB live CUDA graphs hold in their private pools; None off CUDA or where unknown."""
    if device.type != "cuda":
        return None
    try:
        torch.cuda.synchronize(device)
        torch.cuda.empty_cache()  # releases the segments of pools no live graph uses
        segments = torch.cuda.memory_snapshot()
    except Exception:  # noqa: BLE001 (a snapshot is evidence; without it the row says none)
        return None
    index = machine.cuda_index(device)
    return sum(s["total_size"] for s in segments if s.get("device") == index
               and tuple(s.get("segment_pool_id") or (0, 0)) != (0, 0)) / 2**20


def peak_memory_mb(fn: Callable[[], object], device: torch.device, held: int) -> float | None:
    """``held`` bytes plus the most one call of ``fn`` allocates, in MiB; None off CUDA (a
    graph's pool is taken at capture, so a replay reads low)."""
    if device.type != "cuda":
        return None
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    fn()
    torch.cuda.synchronize(device)
    return (torch.cuda.max_memory_allocated(device) - before + held) / 2**20
