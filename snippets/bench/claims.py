"""The tutorial this guide grew from, held to the benchmark's numbers.

The tutorial gives a typical speedup per model and batch size, measured with
``mode="max-autotune-no-cudagraphs"`` in bf16 on an NVIDIA GPU. A single run's speedup moves from
run to run, so ``judged_over_runs`` sets each claimed range beside every mode's median over the
recorded runs; ``tutorial_mode`` holds the tutorial's own mode, from one production run, to it.
"""

from __future__ import annotations

import enum
import statistics
from dataclasses import dataclass
from typing import Any

from snippets.core import render
from snippets.core import rows as typed
from snippets.core.findings import Span

# (model, batch) -> the tutorial's "typical speedup", low and high: its table "What you will
# typically see" (ResNet-50 1.3-2x at batch 1, 1.1-1.4x at 32; the transformer 1.5-2.5x at 1,
# 1.2-1.6x at 32).
CLAIMED: dict[tuple[str, int], tuple[float, float]] = {
    ("resnet50", 1): (1.3, 2.0),
    ("resnet50", 32): (1.1, 1.4),
    ("transformer", 1): (1.5, 2.5),
    ("transformer", 32): (1.2, 1.6),
}
TUTORIAL_MODE = "max-autotune-no-cudagraphs"  # the mode the tutorial measured and recommends


class Claim(str, enum.Enum):
    HOLDS = "holds"
    HIGHER = "higher"
    LOWER = "lower"
    NOT_MEASURED = "not measured"


# How the summary table heads each verdict.
HEADS = {Claim.HOLDS: "Within the claim", Claim.HIGHER: "Above it", Claim.LOWER: "Below it",
         Claim.NOT_MEASURED: "Not measured"}


def verdict(value: float, spread: float, low: float, high: float) -> str:
    """``holds`` if [value - spread/2, value + spread/2] meets [low, high], else higher/lower."""
    if value - spread / 2 > high:
        return Claim.HIGHER.value
    if value + spread / 2 < low:
        return Claim.LOWER.value
    return Claim.HOLDS.value


@dataclass(frozen=True)
class Judged:
    """One claim against one mode: one run's speedup and the IQR of its ratios, or over runs
    the median, its range and how many runs fell within the claim."""

    model: str
    batch: int
    mode: str
    claimed: tuple[float, float]
    verdict: Claim = Claim.NOT_MEASURED
    speedup: float | None = None
    spread: float | None = None  # one run's
    over_runs: Span | None = None  # lowest and highest over the runs
    within: int | None = None
    runs: int | None = None


def _modes(found: list[str]) -> list[str]:
    """The compiled modes in the order met, the tutorial's own last."""
    modes = [m for m in dict.fromkeys(found) if m not in ("eager", TUTORIAL_MODE)]
    return [*modes, TUTORIAL_MODE]


def _one(row: dict[str, Any] | None, model: str, bs: int, mode: str) -> Judged:
    low, high = CLAIMED[(model, bs)]
    if row is None or row.get("speedup") is None or row["status"] not in typed.TIMED:
        return Judged(model, bs, mode, (low, high))
    value, spread = row["speedup"], row.get("speedup_iqr") or 0.0
    return Judged(model, bs, mode, (low, high), Claim(verdict(value, spread, low, high)), value,
                  spread)


def judged_over_runs(runs: list[tuple[str, dict[str, Any]]]) -> list[Judged]:
    """Every claim against every mode over ``runs`` (label, document); the median's verdict."""
    seen: dict[tuple[str, int, str], list[float]] = {}
    for _, doc in runs:
        for r in doc["rows"]:
            if r.get("speedup") is not None and r["status"] in typed.TIMED:
                seen.setdefault((r["model"], r["batch_size"], r["mode"]), []).append(r["speedup"])
    out = []
    for (model, bs), (low, high) in CLAIMED.items():
        for mode in _modes([r["mode"] for _, d in runs for r in d["rows"]]):
            values = seen.get((model, bs, mode))
            if not values:
                out.append(Judged(model, bs, mode, (low, high)))
                continue
            mid = statistics.median(values)
            out.append(Judged(model, bs, mode, (low, high), Claim(verdict(mid, 0.0, low, high)),
                              mid, over_runs=Span.of(values),
                              # as the runs table prints them: 2.004x reads 2.00x, within 1.3x-2x
                              within=sum(low <= round(v, 2) <= high for v in values),
                              runs=len(values)))
    return out


# ---- tables ----------------------------------------------------------------------------------

def _cell(j: Judged) -> str:
    if j.verdict is Claim.NOT_MEASURED:
        return j.verdict.value
    if j.runs is None:
        return f"{j.speedup:.2f}x ± {j.spread / 2:.2f}: {j.verdict.value}"
    low, high = j.over_runs.low, j.over_runs.high
    return (f"{j.speedup:.2f}x ({low:.2f}–{high:.2f}; {j.within} of {j.runs} runs within): "
            f"{j.verdict.value}")


def _table(found: list[Judged], modes: list[str], align: str | None = None) -> str:
    by = {(j.model, j.batch, j.mode): j for j in found}
    head = ("Model · batch", "Claimed", *(f"`{m}`" for m in modes))
    body = [[f"{model} · {bs}", f"{low:g}x to {high:g}x",
             *(_cell(by[(model, bs, m)]) for m in modes)] for (model, bs), (low, high)
            in CLAIMED.items()]
    return render.markdown_table(head, body, align=align)


def summary(found: list[Judged], modes: list[str]) -> str:
    """Per mode, the claims it meets, beats and misses, as a table."""
    shown = [c for c in Claim if any(j.verdict is c and j.mode in modes for j in found)]
    return render.markdown_table(("Mode", *(HEADS[c] for c in shown)), [
        (f"`{m}`", *(", ".join(f"{j.model} · {j.batch}" for j in found
                               if j.mode == m and j.verdict is c) or "–" for c in shown))
        for m in modes], align="l" * (1 + len(shown)))


def verdicts_over_runs(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """A row per claim over every recorded run, then the summary per mode. A mode no run
    measured is a row of the summary, not a column: one of "not measured" is too wide."""
    found = judged_over_runs(runs)
    modes = list(dict.fromkeys(j.mode for j in found))
    shown = [m for m in modes if any(j.mode == m and j.runs for j in found)]
    # Left-aligned: the cells are sentences that wrap (a right-aligned cell stays on one line).
    return (_table(found, shown, align="l" * (2 + len(shown))) + "\n\n"
            + summary(found, modes))


def tutorial_mode(doc: dict[str, Any]) -> str:
    """The tutorial's own mode against its claims, from a ``production-modes`` run (each mode
    in fresh processes beside an eager run of its own): one run, so the IQR is the spread."""
    rows = {(r["model"], r["batch_size"]): r.get("empty") for r in doc["rows"]
            if r["mode"] == TUTORIAL_MODE}
    found = [_one(rows.get((model, bs)), model, bs, TUTORIAL_MODE) for (model, bs) in CLAIMED]
    if not rows:
        return summary(found, [TUTORIAL_MODE])
    return _table(found, [TUTORIAL_MODE]) + "\n\n" + summary(found, [TUTORIAL_MODE])
