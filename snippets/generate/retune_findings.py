"""One weights' decode step compiled by the same code in two fresh processes, as data: how far
the step moved between them and how many of its kernels autotuning tuned differently."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snippets.core import rows


@dataclass(frozen=True)
class Retuned:
    """One weights' step compiled by the same code in two fresh processes, each tuning its
    kernels' block sizes itself: how far the step moved, and how many choices differed."""

    weights: str
    fast_ms: float  # the faster process's step
    slow_ms: float
    kernels: int  # Triton kernels autotuning chose for in both processes
    differ: int  # of them, those given different block sizes or warps
    top: str | None  # the slower process's longest kernel
    top_fast_us: float | None  # its µs per step in the faster process
    top_slow_us: float | None

    @property
    def spread(self) -> float:
        """The slower step's time over the faster's."""
        return self.slow_ms / self.fast_ms

    @property
    def top_head(self) -> str | None:
        """The longest kernel's name cut short: its head says what it fuses."""
        return self.top and self.top[:40]


def retuned(a: dict[str, Any], b: dict[str, Any] | None) -> Retuned | None:
    """Two runs' step of the one weights both timed and recorded choices for; None where either
    run lacks them (a run before the choices were recorded, or a faulted step)."""
    if b is None:
        return None
    steps = [{r["weights"]: r for r in d["rows"] if r["way"] == "step" and rows.timed(r)}
             for d in (a, b)]
    both = [w for w in steps[0] if w in steps[1] and all(w in d.get("tuned", {}) for d in (a, b))]
    if not both:
        return None
    w = both[0]
    (fast, ft), (slow, st) = sorted(((steps[i][w], (a, b)[i]["tuned"][w]) for i in (0, 1)),
                                    key=lambda p: p[0]["latency_ms"]["median"])
    common = set(ft) & set(st)
    top = ((slow.get("profile") or {}).get("top") or [None])[0]

    def us(row: dict[str, Any]) -> float | None:
        kernels = (row.get("profile") or {}).get("top") or []
        return next((k["us_per_call"] for k in kernels if top and k["name"] == top["name"]),
                    None)

    return Retuned(w, fast["latency_ms"]["median"], slow["latency_ms"]["median"], len(common),
                   sum(ft[k] != st[k] for k in common), top and top["name"], us(fast), us(slow))
