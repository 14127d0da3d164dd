"""Where a training step's time goes, as data: the host's share (against a CUDA-graph replay),
the eager steps that keep the GPU busy, and how near the peak the best variant came."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core import rows as typed
from snippets.core.profile import profile_of
from snippets.train.tables import LEARNS, At, Key, by_key, groups, row_key, step_median


class Source(str, enum.Enum):
    """Which run's profile a reading took."""

    RUN_1 = "the profiler"
    RUN_2 = "run 2's profile"


Seen = dict[Key, tuple[dict[str, Any], Source]]  # a row's profile, and which run it came from


def profiles_seen(doc: dict[str, Any], again: dict[str, Any] | None) -> Seen:
    """Each row's profile: its own, else the same row's in ``again``."""
    seen: Seen = {}
    for run, source in ((again or {"rows": []}, Source.RUN_2), (doc, Source.RUN_1)):
        for key, row in by_key(run).items():
            if p := profile_of(row):
                seen[key] = (p, source)
    return seen


def _gpu(seen: tuple[dict[str, Any], Source] | None) -> tuple[dict[str, Any], Source] | None:
    ok = seen and seen[0].get("device_type") == "cuda" and seen[0]["idle_fraction"] is not None
    return seen if ok else None


# A compiled step this many times longer than the same graphs replayed as CUDA graphs is said
# to wait on the host: well past the few percent by which the two can differ on the GPU.
WAITS = 1.2
# An eager step whose GPU is idle less than this share of it is bound by its kernels, not the host.
KERNEL_BOUND = 0.25
# The training goals this guide set itself (record, do not assert): at the largest batch, the
# best variant that learns like eager reaches this share of the bf16 peak measured in the run.
PEAK_GOALS = {"resnet50": 35.0, "transformer": 40.0}


class Pace(str, enum.Enum):
    """What sets the pace of ``model``'s step, read against ``reduce-overhead``'s."""

    HOST = "host"  # at least WAITS times the replayed step: the GPU waits for the host
    GPU = "gpu"  # within WAITS of the replay: the step is the GPU's work
    APART = "apart"  # the two were timed in different commands: not set against each other


@dataclass(frozen=True)
class Idle:
    """``model``'s idle share and kernels a step, and the replayed step's idle share."""

    source: Source
    share: float
    kernels: float
    replayed: float | None


@dataclass(frozen=True)
class Larger:
    """``model``'s step at the next larger batch, over this one's."""

    batch: int
    samples: float
    time_ratio: float


@dataclass(frozen=True)
class Waiting(At):
    """``model``'s step against its replay (``reduce-overhead``): the difference is the host's."""

    pace: Pace
    step_ms: float | None = None
    replayed_ms: float | None = None
    idle: Idle | None = None
    larger: Larger | None = None

    @property
    def waits_ms(self) -> float | None:
        return None if self.step_ms is None else self.step_ms - self.replayed_ms

    @property
    def waits_share(self) -> float | None:
        return None if self.step_ms is None else self.waits_ms / self.step_ms


@dataclass(frozen=True)
class Kernel:
    name: str
    share: float


@dataclass(frozen=True)
class Busy(At):
    """An eager step idle under ``KERNEL_BOUND``: its busy share and longest kernels."""

    source: Source
    busy: float
    longest: tuple[Kernel, ...]


@dataclass(frozen=True)
class Short:
    """Where a step that missed its goal spent its time, from its GPU profile."""

    source: Source
    idle: float | None
    matmul: float | None  # matrix products' and convolutions' share of the kernel time
    kernels: float
    longest: Kernel | None


@dataclass(frozen=True)
class Goal(At):
    """A model's goal at its largest batch, and the best variant's share of the peak."""

    goal: float
    variant: str
    pct: float
    tflops: float | None
    short: Short | None

    @property
    def reached(self) -> bool:
        return self.pct >= self.goal

    @property
    def missed_by(self) -> float:
        return self.goal - self.pct


def waiting(doc: dict[str, Any], seen: Seen | None = None) -> tuple[Waiting, ...]:
    rows, out = by_key(doc), []
    seen = profiles_seen(doc, None) if seen is None else seen
    for model, bs in groups(doc):
        plain, graphs = rows.get((model, bs, "model")), rows.get((model, bs, "reduce-overhead"))
        if not (plain and graphs and plain["status"] in LEARNS and graphs["status"] in LEARNS
                and step_median(plain) and step_median(graphs)):
            continue
        t, g = step_median(plain), step_median(graphs)
        if plain.get("part", 0) != graphs.get("part", 0):
            # A host-bound step moves with the host's speed from one command to the next, so
            # only steps timed in the same rounds are set against each other.
            out.append(Waiting(model, bs, Pace.APART))
            continue
        if t < WAITS * g:
            out.append(Waiting(model, bs, Pace.GPU, t, g))
            continue
        larger = [(b, step_median(r)) for (m, b, v), r in rows.items()
                  if m == model and v == "model" and b > bs and r["status"] in LEARNS
                  and step_median(r)]
        p, r = _gpu(seen.get((model, bs, "model"))), _gpu(seen.get((model, bs, "reduce-overhead")))
        idle = Idle(p[1], p[0]["idle_fraction"], p[0]["kernels_per_call"],
                    r[0]["idle_fraction"] if r else None) if p else None
        more = None
        if larger:
            b, t2 = min(larger)
            more = Larger(b, b / bs, t2 / t)
        out.append(Waiting(model, bs, Pace.HOST, t, g, idle, more))
    return tuple(out)


def _kernels(p: dict[str, Any]) -> list[Kernel]:
    return [Kernel(k["name"], k["share"] or 0.0) for k in p.get("top", [])
            if k["name"] not in p["annotations"]]


def busy(doc: dict[str, Any], seen: Seen) -> tuple[Busy, ...]:
    out = []
    for model, bs in groups(doc):
        got = _gpu(seen.get((model, bs, "eager")))
        if got and got[0]["idle_fraction"] < KERNEL_BOUND:
            p, source = got
            out.append(Busy(model, bs, source, 1 - p["idle_fraction"], tuple(_kernels(p)[:3])))
    return tuple(out)


def _short(seen: tuple[dict[str, Any], Source] | None) -> Short | None:
    if not seen or seen[0].get("device_type") != "cuda" or not seen[0].get("top"):
        return None
    p, source = seen
    split = p.get("by_class") or {}
    total = sum(split.values())
    longest = _kernels(p)
    return Short(source, p["idle_fraction"],
                 split["matmul"] / total if total and "matmul" in split else None,
                 p["kernels_per_call"], longest[0] if longest else None)


def goals(doc: dict[str, Any], seen: Seen | None = None) -> tuple[Goal, ...]:
    """Per model with a goal, at its largest batch: the best variant's share of the peak."""
    if doc["provenance"].get("device_type") != "cuda":
        return ()
    out, seen = [], profiles_seen(doc, None) if seen is None else seen
    prov = doc["provenance"]
    for model, goal in PEAK_GOALS.items():
        # Every share against the one peak the page prints (the file's first command's).
        timed = [r for r in doc["rows"] if r["model"] == model and r["status"] in LEARNS
                 and typed.pct_of_peak(r, prov) is not None]
        if not timed:
            continue
        bs = max(r["batch_size"] for r in timed)
        best = max((r for r in timed if r["batch_size"] == bs),
                   key=lambda r: typed.pct_of_peak(r, prov))
        pct = typed.pct_of_peak(best, prov)
        out.append(Goal(model, bs, goal, best["variant"], pct, best.get("tflops"),
                        _short(seen.get(row_key(best))) if pct < goal else None))
    return tuple(out)
