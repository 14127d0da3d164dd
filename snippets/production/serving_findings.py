"""What a service meets after its start, as data: the findings of the request-stream, compile-mode
and CUDA-graph hazard runs, which the production page's prose reads."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core import measure
from snippets.core import rows as typed
from snippets.production.runs import GOOD
from snippets.production.hazards import STEP_MARKS, Hazard, Outcome

# ---- the request stream ------------------------------------------------------------------------

# The stream goal (record, do not assert): after a warm-up, the 99th percentile request takes at
# most this many times the median one.
STREAM_GOAL = 1.5


class Slower(str, enum.Enum):
    """Which compiled strategies' median request is slower than eager's."""

    ALL = "all"
    NONE = "none"
    SOME = "some"


@dataclass(frozen=True)
class Stream:
    """``calm`` has the shortest slowest request; ``clean`` compiled nothing during the stream,
    and of those ``within`` and ``above`` have a p99 over p50 within the goal and above it;
    ``eager_tail`` is eager's own p99 over p50 (the stream's mix of sizes); which compiled
    strategies' median request is slower than eager's (None without eager)."""

    done: bool
    calm: str | None = None
    calm_max_ms: float | None = None
    clean: tuple[str, ...] = ()
    within: tuple[str, ...] = ()
    above: tuple[str, ...] = ()
    goal: float = STREAM_GOAL
    eager_tail: float | None = None
    eager_p50: float | None = None
    slower: tuple[str, ...] = ()
    verdict: Slower | None = None
    fastest: str | None = None  # the lowest median request, eager included: what the stream
    # says to pick, so that no page names a winner the stream's run contradicts


def stream(doc: dict[str, Any]) -> Stream:
    done = [r for r in doc["rows"] if r["max_ms"] is not None]
    if not done:
        return Stream(False)
    calm = min(done, key=lambda r: r["max_ms"])
    clean = [r for r in done if r["compiles"] == 0 and r["strategy"] != "eager"]
    eager = next((r for r in done if r["strategy"] == "eager" and r["p50_ms"]), None)
    compiled = [r for r in done if r["strategy"] != "eager" and r["p50_ms"]]
    slower = [r["strategy"] for r in compiled if eager and r["p50_ms"] > eager["p50_ms"]]
    verdict = (None if eager is None or not compiled else Slower.ALL
               if len(slower) == len(compiled) else Slower.NONE if not slower else Slower.SOME)
    within = {r["strategy"]: r["p99_ms"] <= STREAM_GOAL * r["p50_ms"] for r in clean
              if r["p50_ms"]}
    return Stream(
        True, calm["strategy"], calm["max_ms"], tuple(r["strategy"] for r in clean),
        tuple(s for s, ok in within.items() if ok), tuple(s for s, ok in within.items() if not ok),
        eager_tail=eager["p99_ms"] / eager["p50_ms"] if eager else None,
        eager_p50=eager["p50_ms"] if eager else None, slower=tuple(slower), verdict=verdict,
        fastest=min((r for r in done if r["p50_ms"]), key=lambda r: r["p50_ms"],
                    default={"strategy": None})["strategy"])


# ---- compile modes -----------------------------------------------------------------------------

# A mode "pays" over another when its median is lower by more than the spread the guide calls
# noise (measure.NOISY_IQR_RATIO): a smaller difference is within what reruns disagree by.
PAYS = measure.NOISY_IQR_RATIO
MODE_ORDER = ("default", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# Each max-autotune mode against the mode it adds tuning to (both of the second pair replay
# CUDA graphs).
TUNED = (("max-autotune-no-cudagraphs", "default"), ("max-autotune", "reduce-overhead"))
# A mode's own eager run this many times faster or slower than the eager row's is named: its
# speedup is over that eager, not the one in the table.
EAGER_APART = 1.2


class Rank(str, enum.Enum):
    """A tuned mode against its base mode, where medians and speedups must agree."""

    PAYS = "pays"
    SLOWER = "slower"
    SPLIT = "split"  # one says faster, the other slower, both beyond noise: no ranking
    NO_GAIN = "no gain"


@dataclass(frozen=True)
class Pair:
    """``tuned`` against ``base`` in one model and batch: its speed over base's by medians (as
    timed) and by speedups (each over its own eager, which cancels a host slower in one
    process; None without speedups), and the compile times with an empty cache."""

    model: str
    batch: int
    tuned: str
    base: str
    rank: Rank
    by_median: float
    by_speedup: float | None
    tuned_compile_s: float | None
    base_compile_s: float | None


@dataclass(frozen=True)
class Modes:
    """Each tuned mode against its base; per model and batch (labelled "model · batch N:
    `mode`"), the fastest mode and the modes whose own eager run was far from the eager
    row's."""

    pairs: tuple[Pair, ...]
    fastest: tuple[str, ...]
    apart: tuple[str, ...]
    split: bool  # some pair cannot be ranked
    absent: tuple[str, ...]  # modes the file does not hold yet


def rank(mode: dict[str, Any], base: dict[str, Any]) -> Pair:
    """Whether ``mode`` pays over ``base``: a verdict needs medians and speedups to agree."""
    by_median = base["latency_ms"]["median"] / mode["latency_ms"]["median"]
    by_speedup = (mode["speedup"] / base["speedup"]
                  if mode.get("speedup") and base.get("speedup") else None)
    both = (by_median, by_median if by_speedup is None else by_speedup)
    verdict = (Rank.PAYS if all(r > 1 + PAYS for r in both) else
               Rank.SLOWER if all(r < 1 - PAYS for r in both) else
               Rank.SPLIT if max(both) > 1 + PAYS and min(both) < 1 - PAYS else Rank.NO_GAIN)
    return Pair(mode["model"], mode["batch_size"], mode["mode"], base["mode"], verdict,
                by_median, by_speedup, mode["compile_empty_s"], base["compile_empty_s"])


def own_eager_ms(doc: dict[str, Any], row: dict[str, Any]) -> float | None:
    """The median of the eager row timed in the same rounds as ``row``: as the row recorded it,
    else its median times its speedup, which is that eager median over this one
    (``core.measure.speedup``), else its run's eager row in the file (``row`` itself, for
    eager); None where none of these is recorded."""
    if row.get("eager_median_ms") is not None:
        return row["eager_median_ms"]
    if row.get("speedup") and typed.median(row):
        return typed.median(row) * row["speedup"]
    return typed.median(typed.own_baseline(doc["rows"], row, lambda r: r["mode"] == "eager"))


def _apart(doc: dict[str, Any], rows: dict[str, dict[str, Any]]) -> list[str]:
    eager = rows.get("eager")
    if not eager:
        return []
    ref = eager["latency_ms"]["median"]
    return [mode for mode, r in rows.items() if mode != "eager"
            and (own := own_eager_ms(doc, r)) is not None
            and not 1 / EAGER_APART < own / ref < EAGER_APART]


def modes(doc: dict[str, Any]) -> Modes:
    """Per model and batch: the fastest mode, each tuned mode against its base, and the modes
    whose own eager run was far from the eager row's."""
    groups: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
    for r in doc["rows"]:
        if r["status"] in GOOD and r["latency_ms"]:
            modes_of = groups.setdefault((r["model"], r["batch_size"]), {})
            # A group's first eager row is its reference; a later command's stays beside its
            # own mode in the table, and that mode's row records its median.
            if r["mode"] != "eager" or "eager" not in modes_of:
                modes_of[r["mode"]] = r
    pairs, fastest, apart = [], [], []
    for (model, bs), rows in groups.items():
        compiled = [r for m, r in rows.items() if m != "eager"]
        if not compiled:
            continue
        label = f"{model} · batch {bs}: "
        fastest.append(label + f"`{min(compiled, key=typed.median)['mode']}`")
        pairs += [rank(rows[t], rows[b]) for t, b in TUNED if t in rows and b in rows]
        apart += [label + f"`{mode}`" for mode in _apart(doc, rows)]
    seen = {r["mode"] for r in doc["rows"]}
    return Modes(tuple(pairs), tuple(fastest), tuple(apart),
                 any(p.rank is Rank.SPLIT for p in pairs),
                 tuple(m for m in MODE_ORDER if m not in seen))


# ---- CUDA-graph hazards ------------------------------------------------------------------------

@dataclass(frozen=True)
class Hazards:
    """Which variants kept the first answer past the next replay, and which lost it; the skip
    cases by what each did; the MB ``default`` and ``reduce-overhead`` keep reserved between
    calls (None where not measured)."""

    kept: tuple[str, ...]
    lost: tuple[str, ...]
    step_marks_lost: bool
    skipped: tuple[str, ...]
    not_skipped: tuple[str, ...]  # recorded and replayed anyway, and answered as eager did
    wrong: tuple[str, ...]
    failed: tuple[str, ...]
    held_default_mb: float | None
    held_graphs_mb: float | None


def hazards(doc: dict[str, Any]) -> Hazards:
    # A step that failed as a whole names the step, not a hazard: None.
    rows = [(next((h for h in Hazard if h.value == r["hazard"]), None), r) for r in doc["rows"]]
    replay = [r for h, r in rows if h is Hazard.OVERWRITTEN]
    kept = tuple(r["variant"] for r in replay if r["outcome"] == Outcome.CORRECT)
    lost = tuple(r["variant"] for r in replay if r["outcome"] != Outcome.CORRECT)
    skips = [r for h, r in rows if h is Hazard.SKIPPED]
    held = {r["variant"]: r["held_mb"] for _, r in rows if r.get("held_mb") is not None}
    return Hazards(
        kept, lost, STEP_MARKS in lost,
        *(tuple(r["variant"] for r in skips if r["outcome"] == o)
          for o in (Outcome.SKIPPED, Outcome.NOT_SKIPPED, Outcome.WRONG, Outcome.ERROR)),
        held.get("default"), held.get("reduce-overhead"))
