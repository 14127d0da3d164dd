"""What the cross-check shows, as data (``of(doc)``): each row's other timers against the harness,
and the CUDA-graph rows (the device sets their time) summed up apart from the rest."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.bench import crosscheck as cc
from snippets.core.findings import Span

# The rows whose time the device sets: a clock that measures only the calls should agree there.
GRAPH_MODE = "reduce-overhead"


class Agreement(str, enum.Enum):
    """Whether another timer's median is within ``crosscheck.AGREE_WITHIN`` of the harness's."""

    WITHIN = "within"
    OUTSIDE = "outside"


def agreement(ratio: float) -> Agreement:
    """The agreement of a timer's median over the harness's."""
    return Agreement.WITHIN if abs(ratio - 1) <= cc.AGREE_WITHIN else Agreement.OUTSIDE


@dataclass(frozen=True)
class Check:
    """One row: each other timer's median over the harness's. ``held``: the Timer held to the
    harness's block length; ``threads``: also given its thread count (None: not timed)."""

    model: str
    batch: int
    mode: str
    noisy: bool
    timer: float
    wall: float
    held: float | None
    threads: float | None
    thread_count: int | None
    timer_calls: int | None  # calls per block the Timer chose itself
    harness_calls: int  # calls per sample of the harness
    wall_agrees: Agreement


@dataclass(frozen=True)
class Group:
    """A set of rows, each ratio lowest to highest. ``wall_agrees``: the wall clock's worst row's;
    ``gap_open``: the Timer read above the bar and not every row timed it held to the harness's
    blocks (``held`` and the block lengths are there only where every row has them)."""

    rows: int
    noisy: int
    wall: Span
    timer: Span
    wall_agrees: Agreement
    gap_open: bool
    held: Span | None
    timer_calls: Span | None
    harness_calls: Span | None
    threads: Span | None
    thread_counts: tuple[int, ...]


@dataclass(frozen=True)
class Crosscheck:
    """Every row, the CUDA-graph rows and the others (or None), and the wall clock's bar."""

    checks: tuple[Check, ...]
    graphs: Group | None
    others: Group | None
    bar: float


def check(row: dict[str, Any]) -> Check | None:
    """One row's check; None where the row has no cross-check."""
    got = cc.ratios(row)
    if got is None:
        return None
    other, harness = row["crosscheck"], row["latency_ms"]["median"]
    held, threads = (other.get(k) for k in ("timer_harness_blocks_ms", "timer_harness_threads_ms"))
    return Check(row["model"], row["batch_size"], row["mode"], row["status"] == "noisy",
                 got[0], got[1], held["median"] / harness if held else None,
                 threads["median"] / harness if threads else None,
                 other.get("harness_threads") if threads else None,
                 other.get("timer_block_calls"), row["calls_per_sample"], agreement(got[1]))


def group(checks: list[Check]) -> Group | None:
    """The summary of ``checks``; None where there are none."""
    if not checks:
        return None
    wall, timer = [c.wall for c in checks], [c.timer for c in checks]
    held = [c.held for c in checks]
    every = all(c.held is not None and c.timer_calls is not None for c in checks)
    threads = [c for c in checks if c.threads is not None]
    return Group(
        rows=len(checks), noisy=sum(c.noisy for c in checks), wall=Span.of(wall),
        timer=Span.of(timer), wall_agrees=agreement(max(wall, key=lambda w: abs(w - 1))),
        gap_open=max(timer) - 1 > cc.AGREE_WITHIN and not every,
        held=Span.of(held) if every else None,
        timer_calls=Span.of([c.timer_calls for c in checks]) if every else None,
        harness_calls=Span.of([c.harness_calls for c in checks]) if every else None,
        threads=Span.of([c.threads for c in threads]) if threads else None,
        thread_counts=tuple(sorted({c.thread_count for c in threads})))


def of(doc: dict[str, Any]) -> Crosscheck:
    """The cross-check findings of one ``bench-crosscheck`` document."""
    checks = [c for r in doc["rows"] if (c := check(r)) is not None]
    return Crosscheck(tuple(checks), group([c for c in checks if c.mode == GRAPH_MODE]),
                      group([c for c in checks if c.mode != GRAPH_MODE]), cc.AGREE_WITHIN)
