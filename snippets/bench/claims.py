"""The tutorial this guide grew from, held to the benchmark's numbers.

The tutorial gives a typical speedup per model and batch size, measured with
``mode="max-autotune-no-cudagraphs"`` in bf16 on an NVIDIA GPU, and recommends that mode for
production. ``judged`` sets each claimed range beside what every mode measured in one run: a
range holds where the measured speedup, give or take half its interquartile range, meets it.
``judged_over_runs`` does the same over every recorded run, since a single run's speedup moves
from run to run: the verdict is the median's, beside the runs' range and how many fell within.
The findings are data (``Judged``); ``verdicts``, ``verdicts_over_runs`` and ``tutorial_mode``
draw them as tables.
"""

from __future__ import annotations

import enum
import statistics
from dataclasses import dataclass
from typing import Any

from snippets.core import render
from snippets.core import rows as typed

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
    """One claim against one mode: the measured speedup (one run's, or the median over runs),
    its spread (one run: the IQR of its paired ratios; over runs: lowest and highest), how many
    runs fell within the claim, and the verdict."""

    model: str
    batch: int
    mode: str
    claimed: tuple[float, float]
    speedup: float | None = None
    spread: float | None = None
    lowest: float | None = None
    highest: float | None = None
    within: int | None = None
    runs: int | None = None
    verdict: Claim = Claim.NOT_MEASURED


def _modes(found: list[str]) -> list[str]:
    """The compiled modes in the order met, the tutorial's own last."""
    modes = [m for m in dict.fromkeys(found) if m not in ("eager", TUTORIAL_MODE)]
    return [*modes, TUTORIAL_MODE]


def _one(row: dict[str, Any] | None, model: str, bs: int, mode: str) -> Judged:
    low, high = CLAIMED[(model, bs)]
    if row is None or row.get("speedup") is None or row["status"] not in typed.TIMED:
        return Judged(model, bs, mode, (low, high))
    value, spread = row["speedup"], row.get("speedup_iqr") or 0.0
    return Judged(model, bs, mode, (low, high), value, spread,
                  verdict=Claim(verdict(value, spread, low, high)))


def judged(doc: dict[str, Any]) -> list[Judged]:
    """Every claim against every mode of one run."""
    rows = {(r["model"], r["batch_size"], r["mode"]): r for r in doc["rows"]}
    return [_one(rows.get((model, bs, mode)), model, bs, mode)
            for (model, bs) in CLAIMED for mode in _modes([r["mode"] for r in doc["rows"]])]


def judged_over_runs(runs: list[tuple[str, dict[str, Any]]]) -> list[Judged]:
    """Every claim against every mode, over ``runs`` (label, document): the median speedup, its
    lowest and highest, how many runs fell within, and the median's verdict."""
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
            out.append(Judged(model, bs, mode, (low, high), mid, None, min(values), max(values),
                              sum(low <= v <= high for v in values), len(values),
                              Claim(verdict(mid, 0.0, low, high))))
    return out


# ---- tables ----------------------------------------------------------------------------------

def _claimed(j: Judged) -> str:
    return f"{j.claimed[0]:g}x to {j.claimed[1]:g}x"


def _cell(j: Judged) -> str:
    if j.verdict is Claim.NOT_MEASURED:
        return j.verdict.value
    if j.runs is None:
        return f"{j.speedup:.2f}x ± {j.spread / 2:.2f}: {j.verdict.value}"
    return (f"{j.speedup:.2f}x ({j.lowest:.2f}–{j.highest:.2f}; {j.within} of {j.runs} "
            f"runs within): {j.verdict.value}")


def _table(found: list[Judged], modes: list[str], align: str | None = None) -> str:
    by = {(j.model, j.batch, j.mode): j for j in found}
    head = ("Model · batch", "Claimed", *(f"`{m}`" for m in modes))
    body = [[f"{model} · {bs}", _claimed(by[(model, bs, modes[0])]),
             *(_cell(by[(model, bs, m)]) for m in modes)] for (model, bs) in CLAIMED]
    return render.markdown_table(head, body, align=align)


def summary(found: list[Judged], modes: list[str]) -> str:
    """Per mode, the claims it meets, beats and misses, as a table."""
    shown = [c for c in Claim if any(j.verdict is c and j.mode in modes for j in found)]
    return render.markdown_table(("Mode", *(HEADS[c] for c in shown)), [
        (f"`{m}`", *(", ".join(f"{j.model} · {j.batch}" for j in found
                               if j.mode == m and j.verdict is c) or "–" for c in shown))
        for m in modes], align="l" * (1 + len(shown)))


def verdicts(doc: dict[str, Any]) -> str:
    """A row per claim: the claimed range, then each mode's measured speedup and its verdict,
    the tutorial's own mode last; then the summary per mode."""
    found = judged(doc)
    modes = list(dict.fromkeys(j.mode for j in found))
    return _table(found, modes) + "\n\n" + summary(found, modes)


def verdicts_over_runs(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """A row per claim over every recorded run, then the summary per mode. A mode no run
    measured gets a row of the summary, not a column: a column of "not measured" under a long
    mode name is what pushed this table past a desktop page."""
    found = judged_over_runs(runs)
    modes = list(dict.fromkeys(j.mode for j in found))
    shown = [m for m in modes if any(j.mode == m and j.runs for j in found)]
    # Left-aligned: the cells are sentences that wrap (a right-aligned cell stays on one line).
    return (_table(found, shown, align="l" * (2 + len(shown))) + "\n\n"
            + summary(found, modes))


def tutorial_mode(doc: dict[str, Any]) -> str:
    """The tutorial's own mode against its claims, from a production modes run (a
    ``production-modes`` document: each mode timed in fresh processes beside an eager run of its
    own). One run, so each cell is its speedup give or take half its IQR, as ``verdicts``."""
    rows = {(r["model"], r["batch_size"]): r.get("empty") for r in doc["rows"]
            if r["mode"] == TUTORIAL_MODE}
    found = [_one(rows.get((model, bs)), model, bs, TUTORIAL_MODE) for (model, bs) in CLAIMED]
    if not rows:
        return summary(found, [TUTORIAL_MODE])
    return _table(found, [TUTORIAL_MODE]) + "\n\n" + summary(found, [TUTORIAL_MODE])
