"""What a ladder run's autotuned rungs say, as data: each against the rung below, the ladders
tuned both ways, and the coordinate-descent rungs beside them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snippets.core import measure
from snippets.core import rows as typed
from snippets.speed import choices

NOISE = measure.NOISY_IQR_RATIO  # a rung is slower only below the rung below by more


@dataclass(frozen=True)
class Split:
    """Kernel µs per call of products and convolutions against the rest, of a rung and of the
    rung below."""

    matmul_us: float
    rest_us: float
    matmul_below_us: float
    rest_below_us: float


def split(row: dict[str, Any]) -> Split | None:
    mine, theirs = row.get("profile") or {}, row.get("below_profile") or {}
    if not (mine.get("by_class") and theirs.get("by_class")):
        return None

    def two(p: dict[str, Any]) -> tuple[float, float]:
        mm = p["by_class"].get("matmul", 0.0)
        return mm, sum(p["by_class"].values()) - mm

    return Split(*two(mine), *two(theirs))


@dataclass(frozen=True)
class Tuned:
    """An autotuned rung against the rung below, with what autotuning measured and the split."""

    model: str
    batch: int
    mode: str
    key: str | None
    ratio: float
    below: str | None
    choices: choices.Choices | None
    split: Split | None


@dataclass(frozen=True)
class Replayed:
    """One ladder autotuned both ways (candidates timed as replays, and by the timer)."""

    model: str
    batch: int
    below: str | None
    graph: choices.Choices
    own: choices.Choices
    graph_ratio: float
    own_ratio: float


@dataclass(frozen=True)
class Descent:
    """A ``coordinate-descent`` rung beside the autotuned rungs of its ladder."""

    model: str
    batch: int
    ratio: float
    below: str | None
    tuned: tuple[Tuned, ...]


@dataclass(frozen=True)
class Autotuned:
    rungs: tuple[Tuned, ...]
    count: int
    slower: int  # rungs slower than the rung below by more than the noise mark
    noise_pct: float
    replayed: tuple[Replayed, ...]
    descent: tuple[Descent, ...]


def autotuned(doc: dict[str, Any]) -> Autotuned:
    """The autotuned findings of a ladder file."""
    rungs = tuple(
        Tuned(r["model"], r["batch_size"], r["mode"], r["rung"].get("key"), r["speedup_prev"],
              r.get("prev_rung"), choices.summary(r), split(r))
        for r in doc["rows"] if "max-autotune" in ((r.get("rung") or {}).get("mode") or "")
        and r["status"] in typed.TIMED and r.get("speedup_prev"))
    replayed = []
    for g in (t for t in rungs if t.key == "graph-timed-autotune"):
        m = next((t for t in rungs if (t.model, t.batch, t.key)
                  == (g.model, g.batch, "max-autotune")), None)
        if m and g.choices and m.choices and g.choices.ops and m.choices.ops:
            replayed.append(Replayed(g.model, g.batch, g.below, g.choices, m.choices, g.ratio,
                                     m.ratio))
    descent = tuple(
        Descent(d["model"], d["batch_size"], d["speedup_prev"], d.get("prev_rung"),
                tuple(t for t in rungs if (t.model, t.batch) == (d["model"], d["batch_size"])))
        for d in doc["rows"] if (d.get("rung") or {}).get("key") == "coordinate-descent"
        and d.get("speedup_prev") and d["status"] in typed.TIMED)
    return Autotuned(rungs, len(rungs), sum(t.ratio < 1 - NOISE for t in rungs), 100 * NOISE,
                     tuple(replayed), descent)
