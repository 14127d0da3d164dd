"""What a start-up run says, as data: the numbers and verdicts the production page's prose reads."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core.findings import Span
from snippets.production.runs import PartlyFailed, PathRuns, partly_failed, paths


class CatchUp(str, enum.Enum):
    """When a path's extra seconds before its first answer are repaid by its faster calls."""

    AFTER = "after"  # after ``calls`` calls
    NO_LATER = "no later"  # it answers no later than eager: nothing to repay
    NEVER = "never"  # later and no faster per call
    # later, and its per-call time inside the range of eager's own runs (processes of one
    # path differ by the host's speed): no gain to count calls by
    WITHIN_SPREAD = "within spread"


@dataclass(frozen=True)
class Against:
    """A path against eager in one model: its first answer's lateness (seconds, signed), its
    per-call time, and when it catches up."""

    path: str
    label: str
    late: float
    ms: float
    catch_up: CatchUp
    calls: float | None


class Graphs(str, enum.Enum):
    """What the file says about the graphs regional compile compiled."""

    UNCOUNTED = "uncounted"  # a path without cache counts
    NO_MISS = "no miss"  # the cache counted no miss: the count says nothing
    COUNTED = "counted"


@dataclass(frozen=True)
class Regional:
    """Regional against whole-model compile: the first answer's lateness (seconds, signed) and
    the graphs each compiled; ``differ`` where it compiled more than one, its blocks not
    identical."""

    late: float
    graphs: Graphs
    misses: float | None
    whole_misses: float | None
    differ: bool


class WarmLoad(str, enum.Enum):
    """A load on a warm cache folder against one on an empty folder."""

    MOSTLY_FOLDER = "mostly folder"  # under half: most of a cold load was work the folder held
    SHORTER = "shorter"
    ALIKE = "alike"  # within ALIKE: the file carried what the load needed


@dataclass(frozen=True)
class Package:
    """Where an AOTInductor package's first answer went: ``load`` (its runs on an empty cache
    folder), the build, and loading it again on a warm folder and with the CPU check trusted
    (None where the file has no load time for them)."""

    load: PathRuns
    build_s: float | None
    warm: PathRuns | None
    trusted: PathRuns | None
    # The paths that answered sooner than its best load and ran no slower per call (a median
    # no higher, or runs whose range holds its median): where eager is one, the file bought
    # nothing on this machine.
    beaten_by: tuple[PathRuns, ...] = ()

    @property
    def warm_load(self) -> WarmLoad | None:
        """The load on a warm folder judged by its share of the load on an empty one."""
        if self.warm is None or not self.load.load_s:
            return None
        share = self.warm.load_s / self.load.load_s
        return (WarmLoad.MOSTLY_FOLDER if share < 0.5 else WarmLoad.ALIKE if share * ALIKE >= 1
                else WarmLoad.SHORTER)

    @property
    def check_timed_apart(self) -> bool:
        """The check was timed in some runs only: its share is of those runs' loading."""
        return self.load.isa_of_s != self.load.load_s


class Goal(str, enum.Enum):
    REACHED = "reached"
    MISSED = "missed"


class Pace(str, enum.Enum):
    """A path's per-call time against another's, at a whole percent."""

    FASTER = "faster"
    SLOWER = "slower"
    SAME = "same"


# The start-up goal this guide set itself (record, do not assert): a path that moves the
# compile out of the service (cache artifacts or AOTInductor) answers first within GOAL_S
# seconds of eager's first answer, at a steady latency at most GOAL_SLOWER above the best
# just-in-time path's.
GOAL_S, GOAL_SLOWER = 2.0, 0.05
PORTABLE = ("artifacts", "aot-load", "aot-load-trusted", "precompile-load")
JIT = ("compile-empty", "compile-warm", "regional")


@dataclass(frozen=True)
class Portable:
    """The fastest portable path against the goal: its lateness over eager (seconds, signed)
    and its per-call time over the best just-in-time path's, less one."""

    path: str
    label: str
    late: float
    slower: float
    goal: Goal
    pace: Pace
    goal_s: float = GOAL_S
    goal_slower: float = GOAL_SLOWER


@dataclass(frozen=True)
class ModelStart:
    model: str
    eager: PathRuns | None
    against: tuple[Against, ...]
    failed: tuple[PathRuns, ...]  # paths that failed in every run
    regional: Regional | None
    package: Package | None
    portable: Portable | None
    precompiled: Package | None = None  # a function saved by aot_compile, loaded like a package


@dataclass(frozen=True)
class Spread:
    """A path whose runs' per-call figures differ by more than ``SPREAD``: its median hides it."""

    model: str
    label: str
    runs: tuple[float, ...]
    ratio: float


@dataclass(frozen=True)
class Startup:
    models: tuple[ModelStart, ...]
    spreads: tuple[Spread, ...]
    partly_failed: tuple[PartlyFailed, ...]
    loads: Span | None  # package loads of every model, where they are about as long
    loads_mostly_check: bool
    canary_missing: bool

    @property
    def empty(self) -> bool:
        return not (self.spreads or self.partly_failed or self.loads or self.canary_missing
                    or any(m.against or m.failed or m.regional or m.package or m.portable
                           or m.precompiled for m in self.models))


# Runs of one path whose per-call figures differ more than this factor are named: the "ms per
# call" cell is their median (with two runs, their mean) and hides the spread.
SPREAD = 1.5
# Load times within this factor of each other are "about as long".
ALIKE = 1.1
CATCH_UP = ("compile-empty", "compile-warm", "artifacts", "regional", "aot-load", "aot-load-warm",
            "aot-load-trusted", "precompile-load", "precompile-load-warm")


def _against(eager: PathRuns | None, s: PathRuns | None) -> Against | None:
    if (s is None or eager is None or None in (s.first_s, s.ms, eager.first_s, eager.ms)):
        return None
    late = s.first_s - eager.first_s
    saved = (eager.ms - s.ms) / 1e3
    runs = eager.ms_runs
    if late <= 0:
        return Against(s.path, s.label, late, s.ms, CatchUp.NO_LATER, None)
    if len(runs) > 1 and min(runs) <= s.ms <= max(runs):
        return Against(s.path, s.label, late, s.ms, CatchUp.WITHIN_SPREAD, None)
    if saved > 0:
        return Against(s.path, s.label, late, s.ms, CatchUp.AFTER, late / saved)
    return Against(s.path, s.label, late, s.ms, CatchUp.NEVER, None)


def _regional(whole: PathRuns | None, regional: PathRuns | None) -> Regional | None:
    if not whole or not regional or None in (whole.first_s, regional.first_s):
        return None
    graphs = (Graphs.UNCOUNTED if None in (whole.misses, regional.misses) else
              Graphs.NO_MISS if not regional.misses else Graphs.COUNTED)
    return Regional(regional.first_s - whole.first_s, graphs, regional.misses, whole.misses,
                    (regional.misses or 0) > 1)


def _package(got: dict[str, PathRuns], kind: str = "aot") -> Package | None:
    """An AOTInductor package's loads (``kind`` "aot"), or a precompiled function's
    ("precompile"): the same four paths, named by their kind."""
    load, build = got.get(f"{kind}-load"), got.get(f"{kind}-build")
    if not load or load.load_s is None or load.first_s is None:
        return None
    warm, trusted = got.get(f"{kind}-load-warm"), got.get(f"{kind}-load-trusted")
    warm = warm if warm and warm.load_s is not None else None
    best = warm if warm and warm.first_s is not None and warm.ms is not None else load
    return Package(load, build.build_s if build else None, warm,
                   trusted if trusted and None not in (trusted.load_s, trusted.first_s)
                   else None,
                   tuple(s for p, s in got.items() if not p.startswith(kind) and
                         None not in (s.first_s, s.ms, best.ms) and
                         s.first_s < best.first_s and _no_slower(s, best.ms)))


def _no_slower(path: PathRuns, ms: float) -> bool:
    return path.ms <= ms or bool(path.ms_runs) and min(path.ms_runs) <= ms <= max(path.ms_runs)


def _portable(got: dict[str, PathRuns]) -> Portable | None:
    eager = got.get("eager")
    done = {p: got[p] for p in PORTABLE + JIT
            if p in got and got[p].first_s is not None and got[p].ms is not None}
    portable = {p: s for p, s in done.items() if p in PORTABLE}
    jit = [s.ms for p, s in done.items() if p in JIT]
    if eager is None or eager.first_s is None or not portable or not jit:
        return None
    path, best = min(portable.items(), key=lambda kv: kv[1].first_s)
    late, slower = best.first_s - eager.first_s, best.ms / min(jit) - 1
    pace = Pace.SAME if not round(slower, 2) else Pace.SLOWER if slower > 0 else Pace.FASTER
    goal = Goal.REACHED if late <= GOAL_S and slower <= GOAL_SLOWER else Goal.MISSED
    return Portable(path, best.label, late, slower, goal, pace)


def startup(doc: dict[str, Any]) -> Startup:
    """The findings of one start-up file, per model and across them."""
    summary = paths(doc)
    models = []
    for model in dict.fromkeys(m for m, _ in summary):
        got = {p: s for (m, p), s in summary.items() if m == model}
        eager = got.get("eager")
        models.append(ModelStart(
            model, eager, tuple(a for p in CATCH_UP if (a := _against(eager, got.get(p)))),
            tuple(s for s in got.values() if s.good == 0),
            _regional(got.get("compile-empty"), got.get("regional")), _package(got),
            _portable(got), _package(got, "precompile")))
    spreads = [Spread(s.model, s.label, s.ms_runs, max(s.ms_runs) / min(s.ms_runs))
               for s in summary.values()
               if len(s.ms_runs) > 1 and max(s.ms_runs) > SPREAD * min(s.ms_runs)]
    # A load that takes as long for every model is the loader's or the machine's, not the
    # weights'.
    got = [s for (_, p), s in summary.items() if p == "aot-load" and s.load_s is not None]
    loads = [s.load_s for s in got]
    alike = len(loads) > 1 and max(loads) <= ALIKE * min(loads)
    return Startup(
        tuple(models), tuple(spreads), tuple(partly_failed(doc)),
        Span.of(loads) if alike else None,
        all(s.isa_s is not None and s.isa_s > s.isa_of_s / 2 for s in got),
        bool(doc["rows"]) and all(r.get("host_canary_us") is None for r in doc["rows"]))
