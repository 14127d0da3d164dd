"""What a loop run says, as data: per weights, the step, the gpt-fast loop and the naive loop
against the copy bandwidth and against each other; int8 against the run's dtype; and torchao's
int8 step beside the package's int8 layer's, with what their host times and profiles point at."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core import measure, rows
from snippets.core.findings import Verdict, verdict

INT8 = ("int8", "int8-head", "torchao", "torchao-unwrapped")


class Cause(str, enum.Enum):
    """Where torchao's int8 step loses to the package's int8 layer, as both steps' host times
    and profiles read. Each reading needs the profile (``--profile``)."""

    NOT_SLOWER = "not slower"  # torchao's step kept pace (within noise of it, or faster)
    # The host takes longer to issue torchao's step than its kernels take to run, while the
    # int8 layer's host time stays under its kernels': the GPU waits on the host.
    HOST = "host"
    # torchao's kernels are busy longer per step than the int8 layer's, by at least half the
    # difference in step time: the GPU's own work is slower.
    KERNELS = "kernels"
    UNKNOWN = "unknown"  # slower, without a profile, or neither reading accounts for it


@dataclass(frozen=True)
class Cell:
    """One weights, one way, timed in the run's rounds."""

    weights: str
    way: str
    ms: float  # per step: a loop's time over its forwards
    tokens_per_s: float
    share: float  # % of the copy bandwidth
    speedup: float | None  # over the run's dtype's row of the same way, in the same rounds
    verdict: Verdict | None
    vs_step: float | None  # a loop's speed as a share of its own step's
    vs_loop: float | None  # the naive loop's speed as a share of the gpt-fast loop's
    prefill_share: float | None  # % of the gpt-fast loop's time the prompt took


@dataclass(frozen=True)
class Torchao:
    """torchao's int8 step beside the int8 layer's, from the same rounds."""

    ratio: float  # torchao's speed over the int8 layer's, paired by round (below 1: slower)
    verdict: Verdict
    host_us: float | None  # host time per step call
    busy_us: float | None  # the kernels' busy time per step, from the profile
    kernels: float | None  # kernels per step
    layer_host_us: float | None
    layer_busy_us: float | None
    layer_kernels: float | None
    cause: Cause


@dataclass(frozen=True)
class Pair:
    """One weights' step against another's, paired by round: ``ratio`` is the other's time
    over this one's (below 1: this one is slower)."""

    weights: str
    baseline: str
    way: str
    ratio: float
    verdict: Verdict


@dataclass(frozen=True)
class Loop:
    size: str
    batch: int
    tokens: int
    dtype: str
    copy_gbps: float
    cells: tuple[Cell, ...]
    torchao: Torchao | None
    unwrapped: Pair | None  # torchao unwrapped before the compile, over torchao as is (step)
    head: Pair | None  # the int8 layer with the head int8 too, over the head kept (loop)

    def at(self, weights: str, way: str = "step") -> Cell | None:
        return next((c for c in self.cells if (c.weights, c.way) == (weights, way)), None)

    def fastest(self, way: str = "step", among: tuple[str, ...] | None = None) -> Cell | None:
        """The fastest timed row of ``way``, of the weights ``among`` (all where None)."""
        found = [c for c in self.cells if c.way == way and (among is None or c.weights in among)]
        return min(found, key=lambda c: c.ms, default=None)

    @property
    def int8(self) -> Cell | None:
        """The fastest int8 weights' gpt-fast loop: the int8 recipe that wins, where one does."""
        return self.fastest("loop", INT8)


def _measurement(row: dict[str, Any] | None) -> measure.Measurement | None:
    if not rows.timed(row):
        return None
    return measure.Measurement.from_dict(row["latency_ms"])


def _cell(r: dict[str, Any]) -> Cell:
    share = r.get("prefill_share")
    return Cell(r["weights"], r["way"], r["latency_ms"]["median"], r["tokens_per_s"],
                100 * r["of_copy_bw"], r.get("speedup"),
                verdict(r["speedup"], r.get("speedup_iqr") or 0.0) if r.get("speedup") else None,
                r.get("vs_step"), r.get("vs_loop"), None if share is None else 100 * share)


def cause(ratio: Verdict, host: float | None, busy: float | None, layer_host: float | None,
          layer_busy: float | None, gap_us: float) -> Cause:
    """The reading of ``Cause`` from torchao's and the layer's host and busy times per step
    (µs) and the difference of their step times (``gap_us``)."""
    if ratio is not Verdict.SLOWER:
        return Cause.NOT_SLOWER
    if None in (host, busy, layer_host, layer_busy):
        return Cause.UNKNOWN
    if host > busy and layer_host <= layer_busy:
        return Cause.HOST
    if busy - layer_busy >= gap_us / 2:
        return Cause.KERNELS
    return Cause.UNKNOWN


def torchao(doc: dict[str, Any]) -> Torchao | None:
    """torchao's step beside the int8 layer's; None where the run did not time both."""
    steps = {r["weights"]: r for r in doc["rows"] if r["way"] == "step"}
    ours, theirs = _measurement(steps.get("int8")), _measurement(steps.get("torchao"))
    if ours is None or theirs is None:
        return None
    ratio = measure.speedup(ours, theirs)
    v = verdict(ratio.value, ratio.iqr)
    a, b = steps["torchao"], steps["int8"]
    pa, pb = a.get("profile") or {}, b.get("profile") or {}
    return Torchao(
        ratio.value, v, a.get("host_us"), pa.get("busy_us_per_call"), pa.get("kernels_per_call"),
        b.get("host_us"), pb.get("busy_us_per_call"), pb.get("kernels_per_call"),
        cause(v, a.get("host_us"), pa.get("busy_us_per_call"), b.get("host_us"),
              pb.get("busy_us_per_call"), 1e3 * (theirs.median - ours.median)))


def pair(doc: dict[str, Any], weights: str, baseline: str, ways: tuple[str, ...]
         ) -> Pair | None:
    """``weights`` against ``baseline`` in the first of ``ways`` where the run timed both."""
    by = {(r["weights"], r["way"]): r for r in doc["rows"]}
    for way in ways:
        a, b = _measurement(by.get((weights, way))), _measurement(by.get((baseline, way)))
        if a is not None and b is not None:
            r = measure.speedup(b, a)
            return Pair(weights, baseline, way, r.value, verdict(r.value, r.iqr))
    return None


def of(doc: dict[str, Any]) -> Loop:
    s = doc["provenance"]["settings"]
    cells = tuple(_cell(r) for r in doc["rows"] if rows.timed(r))
    return Loop(s["size"], s["batch"], s["tokens"], s["dtype"], doc["ceilings"]["copy_gbps"],
                cells, torchao(doc), pair(doc, "torchao-unwrapped", "torchao", ("step", "loop")),
                pair(doc, "int8-head", "int8", ("loop", "step")))
