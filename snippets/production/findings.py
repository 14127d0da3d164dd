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
    """A path against eager in one model: its first answer's lateness (seconds, signed) and
    when it catches up."""

    path: str
    late: float
    catch_up: CatchUp
    calls: float | None


class WarmLoad(str, enum.Enum):
    """A load on a warm cache folder against one on an empty folder."""

    MOSTLY_FOLDER = "mostly folder"  # under half: most of a cold load was work the folder held
    SHORTER = "shorter"
    ALIKE = "alike"  # within ALIKE: the file carried what the load needed


@dataclass(frozen=True)
class Package:
    """An AOTInductor package's or a precompiled function's loads: ``load`` (its runs on an
    empty cache folder) and loading it again on a warm folder (None where the file has no load
    time for it)."""

    load: PathRuns
    warm: PathRuns | None
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


class Goal(str, enum.Enum):
    REACHED = "reached"
    MISSED = "missed"


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

    model: str
    path: str
    label: str
    late: float
    slower: float
    goal: Goal


@dataclass(frozen=True)
class ModelStart:
    model: str
    eager: PathRuns | None
    against: tuple[Against, ...]
    package: Package | None
    portable: Portable | None
    precompiled: Package | None = None  # a function saved by aot_compile, loaded like a package


@dataclass(frozen=True)
class Spread:
    """A path whose runs' per-call figures differ by more than ``SPREAD``: its median hides it."""

    model: str
    label: str
    ratio: float


@dataclass(frozen=True)
class Startup:
    """Per model and across them; the names the prose gives are models ("resnet50"), or a
    model's path ("resnet50 · eager") where the model alone would not say which."""

    models: tuple[ModelStart, ...]
    empty: bool  # no path finished a run
    spreads: tuple[Spread, ...]
    partly_failed: tuple[PartlyFailed, ...]
    loads: Span | None  # package loads of every model, where they are about as long
    loads_mostly_check: bool
    canary_missing: bool
    # Regional compile's graphs (Inductor's cache misses): more than one (its blocks differ),
    # or no miss counted (the count says nothing).
    regional_differ: tuple[str, ...] = ()
    regional_uncounted: tuple[str, ...] = ()
    # A precompiled function loaded on its build's folder, against on an empty one (WarmLoad).
    warm_mostly_folder: tuple[str, ...] = ()
    warm_alike: tuple[str, ...] = ()
    # The paths that answer sooner than a precompiled function's quicker load and run no
    # slower; the models where eager is one of them (the file bought nothing there).
    precompiled_beaten_by: tuple[str, ...] = ()
    precompiled_idle: tuple[str, ...] = ()
    goal_s: float = GOAL_S
    goal_slower: float = GOAL_SLOWER



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
        return Against(s.path, late, CatchUp.NO_LATER, None)
    if len(runs) > 1 and min(runs) <= s.ms <= max(runs):
        return Against(s.path, late, CatchUp.WITHIN_SPREAD, None)
    if saved > 0:
        return Against(s.path, late, CatchUp.AFTER, late / saved)
    return Against(s.path, late, CatchUp.NEVER, None)


def _package(got: dict[str, PathRuns], kind: str = "aot") -> Package | None:
    """An AOTInductor package's loads (``kind`` "aot"), or a precompiled function's
    ("precompile"): the same paths, named by their kind."""
    load, warm = got.get(f"{kind}-load"), got.get(f"{kind}-load-warm")
    if not load or load.load_s is None or load.first_s is None:
        return None
    warm = warm if warm and warm.load_s is not None else None
    best = warm if warm and warm.first_s is not None and warm.ms is not None else load
    return Package(load, warm, tuple(s for p, s in got.items() if not p.startswith(kind) and
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
    goal = Goal.REACHED if late <= GOAL_S and slower <= GOAL_SLOWER else Goal.MISSED
    return Portable(best.model, path, best.label, late, slower, goal)


def startup(doc: dict[str, Any]) -> Startup:
    """The findings of one start-up file, per model and across them."""
    summary = paths(doc)
    models, differ, uncounted = [], [], []
    for model in dict.fromkeys(m for m, _ in summary):
        got = {p: s for (m, p), s in summary.items() if m == model}
        eager = got.get("eager")
        models.append(ModelStart(
            model, eager, tuple(a for p in CATCH_UP if (a := _against(eager, got.get(p)))),
            _package(got), _portable(got),
            _package(got, "precompile")))
        whole, regional = got.get("compile-empty"), got.get("regional")
        if whole and regional and None not in (whole.first_s, regional.first_s, whole.misses,
                                               regional.misses):
            (differ if regional.misses > 1 else [] if regional.misses else uncounted).append(model)
    precompiled = [(m.model, m.precompiled) for m in models if m.precompiled]
    spreads = [Spread(s.model, s.label, max(s.ms_runs) / min(s.ms_runs))
               for s in summary.values()
               if len(s.ms_runs) > 1 and max(s.ms_runs) > SPREAD * min(s.ms_runs)]
    # A load that takes as long for every model is the loader's or the machine's, not the
    # weights'.
    got = [s for (_, p), s in summary.items() if p == "aot-load" and s.load_s is not None]
    loads = [s.load_s for s in got]
    alike = len(loads) > 1 and max(loads) <= ALIKE * min(loads)
    return Startup(
        tuple(models), not any(s.good for s in summary.values()), tuple(spreads),
        tuple(partly_failed(doc)),
        Span.of(loads) if alike else None,
        all(s.isa_s is not None and s.isa_s > s.isa_of_s / 2 for s in got),
        bool(doc["rows"]) and all(r.get("host_canary_us") is None for r in doc["rows"]),
        tuple(differ), tuple(uncounted),
        tuple(m for m, c in precompiled if c.warm_load is WarmLoad.MOSTLY_FOLDER),
        tuple(m for m, c in precompiled if c.warm_load is WarmLoad.ALIKE),
        tuple(f"{m} · {s.label}" for m, c in precompiled for s in c.beaten_by),
        tuple(m for m, c in precompiled if any(s.path == "eager" for s in c.beaten_by)))
