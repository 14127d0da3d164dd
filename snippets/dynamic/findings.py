"""What the dynamic-shapes run's steady-state rows say, as data: each compiled kernel against
eager, the dynamic one against the specialized one, and whether the rounds' spread lets the run
rank them."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class Ranked(str, enum.Enum):
    """Whether the medians differ by more than the widest interquartile range of the rows."""

    RANKED = "ranked"  # they do: the run can rank the kernels
    WITHIN_SPREAD = "within spread"  # they do not: this run cannot rank them


@dataclass(frozen=True)
class Steady:
    """At one shape, after warm-up: each compiled kernel against eager, dynamic against
    specialized, and the medians' spread against the widest IQR."""

    batch: int
    seq: int
    eager_ms: float
    specialized_speedup: float
    dynamic_speedup: float
    dynamic_over_specialized: float
    difference_ms: float  # the largest median minus the smallest
    widest_iqr_ms: float
    ranked: Ranked


def steady(doc: dict[str, Any]) -> Steady | None:
    """The steady-state findings; None without eager, dynamic and specialized rows."""
    rows = {r["variant"]: r for r in doc.get("steady") or ()}
    eager, dyn, static = (rows.get(v) for v in ("eager", "dynamic=True", "dynamic=False"))
    if not (eager and dyn and static):
        return None
    ms = [r["latency_ms"]["median"] for r in rows.values()]
    iqr = max(r["latency_ms"]["iqr"] for r in rows.values())
    span = max(ms) - min(ms)
    return Steady(eager["batch"], eager["seq"], eager["latency_ms"]["median"], static["speedup"],
                  dyn["speedup"], dyn["latency_ms"]["median"] / static["latency_ms"]["median"],
                  span, iqr, Ranked.WITHIN_SPREAD if span < iqr else Ranked.RANKED)
