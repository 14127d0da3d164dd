"""What a training run says, as data: the numbers and verdicts the training page's prose reads."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core.findings import Span
from snippets.train import repeat, where
from snippets.train.repeat import Agreement
from snippets.train.tables import (
    LEARNS,
    At,
    Key,
    break_even_steps,
    by_key,
    groups,
    hosts_apart,
    own_eager,
    row_key,
    step_median,
)
from snippets.train.where import Busy, Goal, Waiting

# ---- which variant pays -----------------------------------------------------------------------


class Winner(str, enum.Enum):
    COMPILED = "compiled"  # a compiled variant that learns like eager has the shortest step
    EAGER = "eager"  # eager is fastest of the variants that learn as it does
    NOTHING_TIMED = "nothing timed"


@dataclass(frozen=True)
class Rival:
    """A row of another command whose speedup beats the fastest row's: on hosts
    ``hosts_apart`` apart (None: not recorded), which is faster stays open."""

    variant: str
    speedup: float
    hosts_apart: float | None


@dataclass(frozen=True)
class Pick(At):
    """The fastest variant that learns like eager at one model and batch; where that is eager,
    the variants faster still that learn differently."""

    winner: Winner
    variant: str | None = None
    speedup: float | None = None
    pays_after: float | None = None
    rival: Rival | None = None
    faster_but_wrong: tuple[str, ...] = ()


@dataclass(frozen=True)
class Counts:
    """The rows by status; the noisy rows' IQR share of median and most CPU steal."""

    rows: int
    mismatched: int
    failed: int
    noisy: int
    noisy_iqr: Span | None
    steal_max: float | None


def _rival(best: dict[str, Any], timed: list[dict[str, Any]]) -> Rival | None:
    rival = max(timed, key=lambda r: r.get("speedup") or 0.0)
    if rival is best or (rival.get("speedup") or 0.0) <= (best.get("speedup") or 0.0) \
            or rival.get("part") == best.get("part"):
        return None
    return Rival(rival["variant"], rival["speedup"], hosts_apart(best, rival))


def picks(doc: dict[str, Any]) -> tuple[Pick, ...]:
    """For each model and batch size, the fastest variant that learns like eager."""
    rows, out = by_key(doc), []
    for model, bs in groups(doc):
        eager = rows.get((model, bs, "eager"))
        timed = [r for (m, b, _), r in rows.items()
                 if (m, b) == (model, bs) and r["status"] in LEARNS and step_median(r)]
        if not eager or not timed:
            out.append(Pick(model, bs, Winner.NOTHING_TIMED))
            continue
        best = min(timed, key=step_median)
        if best["variant"] == "eager":
            wrong = tuple(r["variant"] for (m, b, _), r in rows.items() if (m, b) == (model, bs)
                          and r["status"] == "mismatch" and step_median(r) < step_median(eager))
            out.append(Pick(model, bs, Winner.EAGER, faster_but_wrong=wrong))
            continue
        out.append(Pick(model, bs, Winner.COMPILED, best["variant"],
                        best.get("speedup") or step_median(eager) / step_median(best),
                        break_even_steps(best, own_eager(doc, best) or eager),
                        _rival(best, timed)))
    return tuple(out)


def counts(doc: dict[str, Any]) -> Counts:
    bad = [r for r in doc["rows"] if r["status"] not in LEARNS]
    noisy = [r for r in doc["rows"] if r["status"] == "noisy"]
    iqr = [r["step_ms"]["iqr"] / r["step_ms"]["median"] for r in noisy
           if (r.get("step_ms") or {}).get("median")]
    steal = [r["cpu_steal_pct"] for r in noisy if r.get("cpu_steal_pct") is not None]
    mismatched = sum(r["status"] == "mismatch" for r in bad)
    return Counts(len(doc["rows"]), mismatched, len(bad) - mismatched, len(noisy),
                  Span.of(iqr) if iqr else None, max(steal) if steal else None)


def unpaired(doc: dict[str, Any]) -> tuple[Key, ...]:
    """The compiled rows whose command's eager row the file does not hold."""
    return tuple(row_key(r) for r in doc["rows"] if r["variant"] != "eager"
                 and r.get("speedup") is not None and own_eager(doc, r) is None)


# ---- learning the same ------------------------------------------------------------------------

@dataclass(frozen=True)
class Drift(At):
    variant: str


@dataclass(frozen=True)
class Learning:
    """The steps compared, the tolerance (of eager's first loss), and who drifted past it."""

    steps: int
    tolerance: float | None
    drifted: tuple[Drift, ...]

    @property
    def tolerance_pct(self) -> float | None:
        return None if self.tolerance is None else 100 * self.tolerance

    @property
    def drifted_names(self) -> tuple[str, ...]:
        return tuple(f"{d.model} · {d.batch} · {d.variant}" for d in self.drifted)


def learning(doc: dict[str, Any]) -> Learning:
    return Learning(max((len(r.get("losses") or []) for r in doc["rows"]), default=0),
                    doc["provenance"]["settings"].get("tolerance") or None,
                    tuple(Drift(r["model"], r["batch_size"], r["variant"]) for r in doc["rows"]
                          if r["status"] == "mismatch"))


# ---- all of it --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Findings:
    device_type: str  # "cuda" or "cpu": the device a page reads the run's tables on
    picks: tuple[Pick, ...]
    counts: Counts
    unpaired: tuple[Key, ...]
    waiting: tuple[Waiting, ...]
    busy: tuple[Busy, ...]
    goals: tuple[Goal, ...]
    agreement: Agreement | None  # None without a second run
    learning: Learning
    memory_measured: bool

    @property
    def faster_but_wrong(self) -> tuple[str, ...]:
        """Where eager is fastest of the variants that learn like it, those faster still."""
        return tuple(f"{p.model} · {p.batch} · {v}" for p in self.picks
                     for v in p.faster_but_wrong)


def of(doc: dict[str, Any], again: dict[str, Any] | None = None) -> Findings:
    """A training run's findings; ``again``'s profiles stand in for rows it did not profile."""
    seen = where.profiles_seen(doc, again)
    return Findings(
        device_type=doc["provenance"].get("device_type", ""), picks=picks(doc), counts=counts(doc),
        unpaired=unpaired(doc), waiting=where.waiting(doc, seen), busy=where.busy(doc, seen),
        goals=where.goals(doc, seen),
        agreement=repeat.agreement(doc, again) if again is not None else None,
        learning=learning(doc),
        memory_measured=any(r.get("peak_mem_mb") is not None for r in by_key(doc).values()))
