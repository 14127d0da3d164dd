"""The goals "How fast can it go" sets on one H200 in bf16, and what a recorded ladder says of
each: reached or not, by how much, and the profile and roofline evidence of why.

The goals are recorded, not asserted: each is judged from the fastest rung of its ladder that
computed eager's answer, and every figure in a verdict is computed from the results file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snippets.speed import roofline


@dataclass(frozen=True)
class Goal:
    model: str
    batch_size: int
    metric: str  # "latency_ms": at most ``target``; "pct_of_peak": at least ``target``
    target: float

    def words(self) -> str:
        if self.metric == "latency_ms":
            return f"{self.model} at batch {self.batch_size} in at most {self.target:g} ms"
        return (f"{self.model} at batch {self.batch_size} at {self.target:g} % of the measured "
                "bf16 peak or more")


# The targets for one H200 in bf16: at batch 1 a latency (what a single request waits),
# at batch 32 a share of the matmul peak (how much of the chip a batch puts to work).
GOALS = (Goal("resnet50", 1, "latency_ms", 0.40), Goal("resnet50", 32, "pct_of_peak", 25.0),
         Goal("transformer", 1, "latency_ms", 0.20), Goal("transformer", 32, "pct_of_peak", 45.0))
DEVICE, DTYPE = "H200", "bf16"


def best(doc: dict[str, Any], model: str, bs: int) -> dict[str, Any] | None:
    """The fastest rung of a ladder that ran and computed eager's answer."""
    rows = [r for r in doc["rows"] if r["model"] == model and r["batch_size"] == bs
            and r["status"] in ("ok", "noisy") and r.get("latency_ms")]
    return min(rows, key=lambda r: r["latency_ms"]["median"]) if rows else None


def _why(row: dict[str, Any], ceil: dict[str, Any] | None) -> str:
    """The profile and roofline evidence of a row, as one sentence."""
    parts = []
    prof = row.get("profile") or {}
    if prof.get("idle_fraction") is not None:
        parts.append(f"the device sat idle between kernels for {100 * prof['idle_fraction']:.0f} "
                     f"% of the profiled wall time, over {prof['kernels_per_call']:.0f} kernels "
                     "a call")
        if prof.get("top"):
            top = prof["top"][0]
            parts.append(f"the largest kernel, `{top['name']}`, held "
                         f"{100 * (top['share'] or 0):.0f} % of it")
    read = roofline.row_reading(row, ceil)
    if read:
        cap = 100 * read["compute_ms"] / read["bound_ms"]
        parts.append(f"the roofline puts its floor at {read['bound_ms']:.3g} ms "
                     f"({read['bound']}-bound), {100 * read['of_roofline']:.0f} % of the "
                     f"measured time, and caps it at {cap:.0f} % of peak")
    return "; ".join(parts) if parts else "no profile or roofline reading was recorded"


def verdict(doc: dict[str, Any], goal: Goal) -> str:
    """One goal against a ladder document, as a sentence computed from it."""
    row = best(doc, goal.model, goal.batch_size)
    if row is None:
        return f"- **{goal.words()}**: not measured in this run."
    ceil = doc["provenance"].get("ceilings")
    got_ms = row["latency_ms"]["median"]
    if goal.metric == "latency_ms":
        reached = got_ms <= goal.target
        how = (f"`{row['mode']}` takes {got_ms:.3g} ms" + (
            "" if reached else f", {got_ms - goal.target:.3g} ms ({got_ms / goal.target:.2f} "
                               "times) over"))
    else:
        pct = row.get("pct_of_peak")
        if pct is None:
            return f"- **{goal.words()}**: no peak was measured in this run."
        reached = pct >= goal.target
        how = (f"`{row['mode']}` reaches {pct:.1f} % in {got_ms:.3g} ms" + (
            "" if reached else f", {goal.target - pct:.1f} points short"))
    head = "reached" if reached else "not reached"
    why = "" if reached else f". Why: {_why(row, ceil)}"
    return f"- **{goal.words()}**: {head}; {how}{why}."


def listing() -> str:
    """The goals as the page lists them before any run is judged."""
    return "\n".join(f"- {g.words()}" for g in GOALS)


def verdicts(doc: dict[str, Any]) -> str:
    """Every goal against a ladder document; where the run is not an H200 in bf16, why the goals
    are not judged."""
    p = doc["provenance"]
    dtype = p.get("settings", {}).get("dtype")
    if DEVICE not in str(p.get("device")) or dtype != DTYPE:
        return (f"The goals are set for one {DEVICE} in {DTYPE}; this run is {p.get('device')} in "
                f"{dtype}, so they are not judged here.")
    return "\n".join(verdict(doc, g) for g in GOALS)
