"""The goals "How fast can it go" sets on one H200 in bf16, each judged from the fastest rung
of its ladder that computed eager's answer: met or missed, by how much, and why."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core import render
from snippets.core import rows as typed
from snippets.core import roofline


@dataclass(frozen=True)
class Goal:
    model: str
    batch_size: int
    metric: str  # "latency_ms": at most ``target``; "pct_of_peak": at least ``target``
    target: float


# The targets for one H200 in bf16: at batch 1 a latency (what a single request waits),
# at batch 32 a share of the matmul peak (how much of the chip a batch puts to work).
GOALS = (Goal("resnet50", 1, "latency_ms", 0.40), Goal("resnet50", 32, "pct_of_peak", 25.0),
         Goal("transformer", 1, "latency_ms", 0.20), Goal("transformer", 32, "pct_of_peak", 45.0))
DEVICE, DTYPE = "H200", "bf16"


def best(doc: dict[str, Any], model: str, bs: int) -> dict[str, Any] | None:
    """The fastest rung of a ladder that ran and computed eager's answer."""
    rows = [r for r in doc["rows"] if r["model"] == model and r["batch_size"] == bs
            and r["status"] in typed.TIMED and r.get("latency_ms")]
    return min(rows, key=lambda r: r["latency_ms"]["median"]) if rows else None


class Outcome(str, enum.Enum):
    MET = "met"
    MISSED = "missed"
    NOT_MEASURED = "not measured"  # the ladder has no rung that computed eager's answer
    NO_PEAK = "no peak"  # a share of peak, in a run that measured no peak


@dataclass(frozen=True)
class Why:
    """Why a goal was missed: idle %, kernels per call, the largest kernel and its %, the
    roofline."""

    idle_pct: float | None
    kernels: float | None
    top: str | None
    top_pct: float | None
    roof: roofline.Roof | None


@dataclass(frozen=True)
class Judged:
    """One goal against a ladder: the fastest rung's median ms and % of peak, and where missed
    by how much (``over_ms`` and ``times``, or ``short`` in points of peak) and why."""

    goal: Goal
    outcome: Outcome
    mode: str | None = None
    ms: float | None = None
    pct: float | None = None
    over_ms: float | None = None
    times: float | None = None
    short: float | None = None
    why: Why | None = None


@dataclass(frozen=True)
class Goals:
    """The goals against a ladder run; not ``judged`` off an H200 in bf16."""

    judged: bool
    device: str
    dtype: str | None
    goals: tuple[Judged, ...]


def _why(row: dict[str, Any], ceil: dict[str, Any] | None) -> Why:
    prof = row.get("profile") or {}
    idle = prof.get("idle_fraction")
    top = (prof.get("top") or [None])[0] if idle is not None else None
    return Why(100 * idle if idle is not None else None,
               prof.get("kernels_per_call") if idle is not None else None,
               top["name"] if top else None, 100 * (top["share"] or 0) if top else None,
               roofline.roof(row, ceil))


def judge(doc: dict[str, Any], goal: Goal) -> Judged:
    """One goal against a ladder document."""
    row = best(doc, goal.model, goal.batch_size)
    if row is None:
        return Judged(goal, Outcome.NOT_MEASURED)
    ms = row["latency_ms"]["median"]
    pct = typed.pct_of_peak(row, doc["provenance"])  # against the ceiling the page prints
    if goal.metric == "latency_ms":
        met = ms <= goal.target
        how = {} if met else {"over_ms": ms - goal.target, "times": ms / goal.target}
    elif pct is None:
        return Judged(goal, Outcome.NO_PEAK, row["mode"], ms)
    else:
        met = pct >= goal.target
        how = {} if met else {"short": goal.target - pct}
    why = None if met else _why(row, doc["provenance"].get("ceilings"))
    return Judged(goal, Outcome.MET if met else Outcome.MISSED, row["mode"], ms, pct, why=why,
                  **how)


def of(doc: dict[str, Any]) -> Goals:
    """Every goal against a ladder document."""
    p = doc["provenance"]
    dtype = p.get("settings", {}).get("dtype")
    judged = DEVICE in str(p.get("device")) and dtype == DTYPE
    return Goals(judged, str(p.get("device")), dtype,
                 tuple(judge(doc, g) for g in GOALS) if judged else ())


def listing() -> str:
    """The goals as a table, before any run is judged."""
    return render.markdown_table(("Model", "Batch", "Goal"), (
        (g.model, str(g.batch_size),
         f"≤ {g.target:g} ms" if g.metric == "latency_ms" else f"≥ {g.target:g} % of peak")
        for g in GOALS),
        align="lrl")
