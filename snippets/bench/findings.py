"""What a benchmark run says, as data: ``of(doc)``, the numbers and verdicts its page reads."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets import bench
from snippets.core import results
from snippets.core import rows as typed
from snippets.core.findings import Span, Verdict, verdict

# the variants that replay CUDA graphs: two modes, and the graphs made without Inductor
CUDA_GRAPH_MODES = ("reduce-overhead", "max-autotune", "eager-graphed", "cudagraphs-backend")


class Bound(str, enum.Enum):
    """What eager's time waits on, read from how it grows with the batch."""

    DEVICE = "device"  # it grew with the work: the device's work dominates
    HOST = "host"  # on a GPU it hardly grew: the host issuing kernels sets the pace
    PER_CALL = "per call"  # on a CPU it hardly grew: a fixed cost per call (Python, dispatch)


@dataclass(frozen=True)
class Growth:
    """Eager's time and work at its largest batch over its smallest, and what it waits on."""

    model: str
    small: int
    large: int
    time_ratio: float
    work_ratio: float
    bound: Bound


@dataclass(frozen=True)
class Fastest:
    """The fastest mode of one (model, batch) that computed eager's answer, and its speedup
    (None where eager itself is fastest)."""

    model: str
    batch: int
    mode: str
    speedup: float | None


@dataclass(frozen=True)
class Gain:
    """One compiled row's speedup, the IQR of its per-round ratios, and its verdict."""

    model: str
    batch: int
    mode: str
    speedup: float
    spread: float
    verdict: Verdict


@dataclass(frozen=True)
class ModeRange:
    """One model's speedups in one mode, lowest and highest over the run's batch sizes."""

    model: str
    mode: str
    speedup: Span


@dataclass(frozen=True)
class Findings:
    device: str
    dtype: str | None
    models: tuple[str, ...]
    batches: tuple[int, ...]
    growth: tuple[Growth, ...]
    fastest: tuple[Fastest, ...]
    gains: tuple[Gain, ...]
    ranges: tuple[ModeRange, ...]
    rows: int
    noisy: int
    failed: int
    too_close: tuple[str, ...] = ()  # rows within noise of eager, "model · batch · mode"
    # in a run that began with an empty Inductor cache: the modes compiled after each group's
    # first one, and their compile time over that first one's, lowest and highest
    later_modes: tuple[str, ...] = ()
    later_ratio: Span | None = None

    def range_of(self, model: str, mode: str) -> ModeRange | None:
        return next((r for r in self.ranges if (r.model, r.mode) == (model, mode)), None)


def host_bound(time_ratio: float, work_ratio: float) -> bool:
    """Eager grew by less than a quarter of the added work: not the device's arithmetic."""
    return time_ratio < work_ratio / 4


def growth(doc: dict[str, Any], model: str) -> Growth | None:
    """Eager's growth for ``model``; None with one batch size or no eager times."""
    found = typed.by_key(results.typed_rows(doc))
    device = results.device_type_of(doc)
    sizes = sorted({k.batch for k in found if k.model == model})
    if len(sizes) < 2:
        return None
    low, high = (found.get(typed.Key(device, model, bs, "eager")) for bs in (sizes[0], sizes[-1]))
    if not (low and high and low.median and high.median):
        return None
    time_ratio, work_ratio = high.median / low.median, sizes[-1] / sizes[0]
    bound = (Bound.DEVICE if not host_bound(time_ratio, work_ratio)
             else Bound.HOST if device == "cuda" else Bound.PER_CALL)
    return Growth(model, sizes[0], sizes[-1], time_ratio, work_ratio, bound)


def _fastest(found: list[typed.Row]) -> list[Fastest]:
    out = []
    for model, bs in dict.fromkeys((r.key.model, r.key.batch) for r in found):
        timed = [r for r in found if (r.key.model, r.key.batch) == (model, bs) and r.median
                 and r.status is not typed.Status.MISMATCH]
        if not timed:
            continue
        best = min(timed, key=lambda r: r.median)
        eager = next((r for r in timed if r.key.variant == "eager"), None)
        ratio = eager.median / best.median if eager and best.key.variant != "eager" else None
        out.append(Fastest(model, bs, best.key.variant, ratio))
    return out


def _later_compiles(doc: dict[str, Any]) -> dict[str, list[float]]:
    """Each later mode's compile time over its group's first: an empty cache is empty for the
    first compile only, a later one reuses what it cached."""
    if bench.cache_state(doc["provenance"].get("settings", {})) != "empty":
        return {}
    first: dict[tuple[str, int], float] = {}
    later: dict[str, list[float]] = {}
    for r in doc["rows"]:
        if r.get("compile_s") is None:
            continue
        group = (r["model"], r["batch_size"])
        if group not in first:
            first[group] = r["compile_s"]
        elif first[group] > 0:
            later.setdefault(r["mode"], []).append(r["compile_s"] / first[group])
    return later


def of(doc: dict[str, Any]) -> Findings:
    """The findings of one benchmark run."""
    found = results.typed_rows(doc)
    gains = [Gain(r.key.model, r.key.batch, r.key.variant, r.get("speedup"),
                  r.get("speedup_iqr"), verdict(r.get("speedup"), r.get("speedup_iqr")))
             for r in found if r.key.variant != "eager" and r.status.value in typed.TIMED
             and r.get("speedup") is not None and r.get("speedup_iqr") is not None]
    ranges = []
    for model in dict.fromkeys(r.key.model for r in found):
        for mode in dict.fromkeys(r.key.variant for r in found if r.key.variant != "eager"):
            got = [r.get("speedup") for r in found if (r.key.model, r.key.variant) == (model, mode)
                   and r.get("speedup") is not None and r.status.value in typed.TIMED]
            if got:
                ranges.append(ModeRange(model, mode, Span.of(got)))
    models = dict.fromkeys(r.key.model for r in found)
    later = _later_compiles(doc)
    return Findings(
        device=results.device_type_of(doc),
        dtype=doc["provenance"].get("settings", {}).get("dtype"), models=tuple(models),
        batches=tuple(sorted({r.key.batch for r in found})),
        growth=tuple(g for m in models if (g := growth(doc, m)) is not None),
        fastest=tuple(_fastest(found)), gains=tuple(gains),
        ranges=tuple(ranges), rows=len(found),
        noisy=sum(r.status is typed.Status.NOISY for r in found),
        failed=sum(r.status.value in typed.FAILED for r in found),
        too_close=tuple(f"{g.model} · {g.batch} · {g.mode}" for g in gains
                        if g.verdict is Verdict.WITHIN_NOISE),
        later_modes=tuple(later), later_ratio=Span.of(sum(later.values(), [])) if later else None)
