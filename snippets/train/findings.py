"""What a training run says, as data: the numbers and verdicts the training page's prose reads.

``of(doc, again)`` takes a ``train`` document (and a second run of the same commands,
``train-repeat``, where one is recorded) and returns a frozen ``Findings``: which variant pays for
each model and batch size, what the rows' statuses count, where a step's time goes, how near the
peak it came, whether the two runs agree, and whether every variant learned as eager did.
``docs/training.md`` (through ``docs/includes/train.md``) places the numbers into its sentences
and branches on the verdicts. Pure: nothing here measures, formats or composes text.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core import render
from snippets.core.findings import Span
from snippets.train.tables import (
    LEARNS,
    Key,
    break_even_steps,
    by_key,
    groups,
    hosts_apart,
    own_eager,
    profile_of,
    row_key,
    step_median,
)

# ---- which variant pays -----------------------------------------------------------------------


class Winner(str, enum.Enum):
    COMPILED = "compiled"  # a compiled variant that learns like eager has the shortest step
    EAGER = "eager"  # eager is fastest of the variants that learn as it does
    NOTHING_TIMED = "nothing timed"


@dataclass(frozen=True)
class Rival:
    """A row of the same group, timed in another command, whose speedup (over its own command's
    eager) beats the fastest row's: the hosts ran at different speeds, so which is faster stays
    open. ``hosts_apart`` is the canaries' gap, None where one was not recorded."""

    variant: str
    speedup: float
    hosts_apart: float | None


@dataclass(frozen=True)
class Pick:
    """The fastest variant of one model and batch size that learns like eager: its speedup over
    eager and after how many steps it has paid for its first steps; where eager is fastest, the
    variants faster still that learn differently."""

    model: str
    batch: int
    winner: Winner
    variant: str | None = None
    speedup: float | None = None
    pays_after: float | None = None
    rival: Rival | None = None
    faster_but_wrong: tuple[str, ...] = ()


@dataclass(frozen=True)
class Counts:
    """The rows by status, and what the file says of the noisy rows' cause: their IQR as a
    share of their median, and the most CPU steal (a hypervisor taking the cores) during their
    rounds, None where not recorded."""

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
    """The compiled rows whose own command's eager row the file does not hold: their speedups
    are against eager rounds the file does not show."""
    return tuple(row_key(r) for r in doc["rows"] if r["variant"] != "eager"
                 and r.get("speedup") is not None and own_eager(doc, r) is None)


# ---- where the time goes ----------------------------------------------------------------------

class Source(str, enum.Enum):
    """Which run's profile a reading took: the run's own, or the second run's for a row the
    first did not profile."""

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
    """A GPU profile's idle share of ``model``'s step, its kernels a step, and the idle share
    of the replayed step where that was profiled too."""

    source: Source
    share: float
    kernels: float
    replayed: float | None


@dataclass(frozen=True)
class Larger:
    """``model``'s step at the next larger batch: that batch, its samples over this one's, and
    its step over this one's."""

    batch: int
    samples: float
    time_ratio: float


@dataclass(frozen=True)
class Waiting:
    """``model``'s step against the same graphs replayed as CUDA graphs (``reduce-overhead``):
    what the replay takes off it is the host's share."""

    model: str
    batch: int
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
class Busy:
    """An eager step that keeps the GPU busy (idle under ``KERNEL_BOUND``): its busy share and
    its longest kernels, the work a compiled step can shorten there."""

    model: str
    batch: int
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
class Goal:
    """A model's goal at its largest batch, and the best variant's share of the peak."""

    model: str
    batch: int
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
            if render.ANNOTATION not in k["name"]]


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
    for model, goal in PEAK_GOALS.items():
        timed = [r for r in doc["rows"] if r["model"] == model and r["status"] in LEARNS
                 and r.get("pct_of_peak") is not None]
        if not timed:
            continue
        bs = max(r["batch_size"] for r in timed)
        best = max((r for r in timed if r["batch_size"] == bs), key=lambda r: r["pct_of_peak"])
        pct = best["pct_of_peak"]
        out.append(Goal(model, bs, goal, best["variant"], pct, best.get("tflops"),
                        _short(seen.get(row_key(best))) if pct < goal else None))
    return tuple(out)


# ---- two runs of the same commands ------------------------------------------------------------

# Two runs "agree" on a speedup when they differ by at most this fraction of the first run's.
AGREE = 0.05


def command_date(doc: dict[str, Any], row: dict[str, Any]) -> str:
    """When the command that measured ``row`` started (ISO 8601, so strings order as dates):
    its part's date in a file joined from several commands, else the file's."""
    prov = doc["provenance"]
    parts, part = prov.get("parts") or [], row.get("part", 0)
    return (parts[part] if part < len(parts) else prov).get("date", "")


@dataclass(frozen=True)
class Pair:
    """One compiled speedup in each run, and how far run 2's is from run 1's (a fraction of
    it); ``later``: run 1's row comes from a command run after run 2."""

    key: Key
    first: float
    second: float | None
    apart: float | None
    later: bool

    @property
    def agrees(self) -> bool:
        return self.apart is not None and abs(self.apart) <= AGREE


@dataclass(frozen=True)
class Moved:
    """For a speedup that moved: each run's eager step and the variant's, and the host canary
    (a fixed piece of CPU work; higher is a slower host), run 1 then run 2."""

    key: Key
    later: bool
    eager_ms: tuple[float | None, float | None]
    variant_ms: tuple[float | None, float | None]
    canary_us: tuple[float | None, float | None]
    eager_moved_more: bool


@dataclass(frozen=True)
class Agreement:
    pairs: tuple[Pair, ...]
    moved: tuple[Moved, ...]
    later_dates: tuple[str, ...]  # "2026-01-01 05:00": when run 1's later commands ran (UTC)
    mark: float = AGREE

    @property
    def both(self) -> int:
        return sum(p.apart is not None for p in self.pairs)

    @property
    def agree(self) -> int:
        return sum(p.agrees for p in self.pairs)

    @property
    def apart(self) -> tuple[Pair, ...]:
        return tuple(p for p in self.pairs if p.apart is not None and not p.agrees)

    @property
    def eager_moved_more(self) -> int:
        return sum(m.eager_moved_more for m in self.moved)


def agreement(doc: dict[str, Any], again: dict[str, Any]) -> Agreement:
    """Every compiled speedup of one run beside the same row of a second run, and for those
    apart by more than ``AGREE``, which of the two steps moved."""
    first, second = by_key(doc), by_key(again)
    last = max((command_date(again, r) for r in again["rows"]), default="")
    later = {k for k, r in first.items() if k in second and command_date(doc, r) > last}
    pairs = []
    for key, row in first.items():
        a, b = row.get("speedup"), (second.get(key) or {}).get("speedup")
        if key[2] == "eager" or a is None:
            continue
        pairs.append(Pair(key, a, b, (b - a) / a if b is not None else None, key in later))
    moved = []
    for p in pairs:
        if p.apart is None or p.agrees:
            continue
        a, b = first[p.key], second[p.key]
        ea, eb = own_eager(doc, a), own_eager(again, b)
        change = [abs(step_median(y) / step_median(x) - 1) if step_median(x) and step_median(y)
                  else None for x, y in ((ea, eb), (a, b))]
        moved.append(Moved(p.key, p.later, (step_median(ea), step_median(eb)),
                           (step_median(a), step_median(b)),
                           (a.get("host_canary_us"), b.get("host_canary_us")),
                           None not in change and change[0] > change[1]))
    dates = sorted({command_date(doc, first[k])[:16].replace("T", " ") for k in later
                    if k[2] != "eager"})
    return Agreement(tuple(pairs), tuple(moved), tuple(dates))


# ---- learning the same ------------------------------------------------------------------------

@dataclass(frozen=True)
class Drift:
    model: str
    batch: int
    variant: str


@dataclass(frozen=True)
class Learning:
    """Over how many steps the losses were compared, the tolerance (a fraction of eager's first
    loss, None where not recorded), and the variants that drifted past it."""

    steps: int
    tolerance: float | None
    drifted: tuple[Drift, ...]


def learning(doc: dict[str, Any]) -> Learning:
    return Learning(max((len(r.get("losses") or []) for r in doc["rows"]), default=0),
                    doc["provenance"]["settings"].get("tolerance") or None,
                    tuple(Drift(r["model"], r["batch_size"], r["variant"]) for r in doc["rows"]
                          if r["status"] == "mismatch"))


# ---- all of it --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Findings:
    device: str
    picks: tuple[Pick, ...]
    counts: Counts
    unpaired: tuple[Key, ...]
    waiting: tuple[Waiting, ...]
    busy: tuple[Busy, ...]
    goals: tuple[Goal, ...]
    profiled: bool  # either run profiled any row
    agreement: Agreement | None  # None without a second run
    learning: Learning
    memory_measured: bool


def of(doc: dict[str, Any], again: dict[str, Any] | None = None) -> Findings:
    """The findings of one training run, with a second run of the same commands where given:
    its profiles stand in for rows the first did not profile."""
    seen = profiles_seen(doc, again)
    return Findings(
        device=doc["provenance"].get("device_type", ""), picks=picks(doc), counts=counts(doc),
        unpaired=unpaired(doc), waiting=waiting(doc, seen), busy=busy(doc, seen),
        goals=goals(doc, seen),
        profiled=any(r.get("profile") for r in [*doc["rows"], *(again or {"rows": []})["rows"]]),
        agreement=agreement(doc, again) if again is not None else None,
        learning=learning(doc),
        memory_measured=any(r.get("peak_mem_mb") is not None for r in by_key(doc).values()))
