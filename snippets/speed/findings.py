"""What a speed run says, as data: the numbers and verdicts "How fast can it go" reads from a
``bench-ladder`` document (``of``); ``findings_tables`` draws them."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

from snippets.core import measure
from snippets.core import rows as typed
from snippets.core import roofline
from snippets.speed import evidence, goals
from snippets.speed.autotune_findings import Autotuned, autotuned
from snippets.speed.evidence import EagerFastest, FirstCompile, FrozenProfile, Slower

NOISE = measure.NOISY_IQR_RATIO  # a step "buys" only if it beats the rung below by more


@dataclass(frozen=True)
class Ceilings:
    """What the run measured before any rung was timed; ``device_copy`` is a GPU's copy from
    device memory to device memory (a CPU's is main memory to main memory)."""

    matmul_n: int
    matmul_dtype: str
    matmul_tflops: float
    copy_mib: float
    copy_gbps: float
    samples: int
    device_copy: bool


class Step(str, enum.Enum):
    """Whether the ladder's best step beats the rung below by more than the noise mark."""

    BUYS = "buys"
    NONE = "none"


@dataclass(frozen=True)
class BestStep:
    """The step with the largest speedup over the rung below; ``spreads`` (the two rows' IQR %)
    where its gain is within them."""

    mode: str
    below: str | None
    speedup: float
    verdict: Step
    spreads: tuple[float, ...] | None
    command: int = 1  # which of its ladder's commands (blocks) timed it, as the tables number them


@dataclass(frozen=True)
class Ladder:
    """One ladder's fastest rung that computed eager's answer (``speedup`` None where eager is
    fastest), what its profile shows, the best step, its roofline."""

    model: str
    batch: int
    mode: str
    speedup: float | None
    eager: EagerFastest | None
    frozen: FrozenProfile | None
    step: BestStep | None
    roof: roofline.Roof | None
    command: int = 1  # the block of the fastest rung: a later command's is not the climbed ladder


@dataclass(frozen=True)
class Ladders:
    device: str
    ceilings: Ceilings | None
    apart: tuple[str, ...]  # rows timed against the rung below in another command's rounds
    ladders: tuple[Ladder, ...]
    slower: tuple[Slower, ...]
    rows: int
    failed: int
    first_compiles: tuple[FirstCompile, ...]
    cache_empty: bool
    shared_code: bool  # the rungs shared one compiled entry: Dynamo was reset between them
    noise_pct: float  # the mark a best step must beat the rung below by to buy, in %
    fastpath: bool  # some ladder's fastest rung is eager on the encoder's fused fast path
    prepacked: bool  # some frozen rung's profile shows oneDNN's prepacked operators
    unpacked: bool  # some frozen rung's profile shows plain convolutions, nothing prepacked


def is_eager(row: dict[str, Any]) -> bool:
    """A ladder's baseline: every ratio of its block is against its eager rung."""
    return row["mode"] == "eager"


def placed(doc: dict[str, Any]) -> list[typed.InRun]:
    """A ladder file's rows in blocks, one per command, as the Results page lists them."""
    return typed.in_runs(doc["rows"], is_eager)


def climbed(doc: dict[str, Any]) -> list[typed.InRun]:
    """Each ladder's block that climbed from its one eager row; a later command's block has
    ratios against its own eager, so it is shown apart (``later``)."""
    return [p for p in placed(doc) if p.run == 1]


def later(doc: dict[str, Any]) -> list[typed.InRun]:
    """The blocks of later commands, each with its own eager row."""
    return [p for p in placed(doc) if p.run > 1]


def _ceilings(doc: dict[str, Any]) -> Ceilings | None:
    c = doc["provenance"].get("ceilings")
    if not c:
        return None
    return Ceilings(c["matmul_n"], c["matmul_dtype"], c["matmul_tflops"], c["copy_mib"],
                    c["copy_gbps"], len(c["matmul_samples"]),
                    doc["provenance"].get("device_type") == "cuda")


def one_step(doc: dict[str, Any], row: dict[str, Any]) -> bool:
    """Whether a row's ``speedup_prev`` is over the rung just below it: a later command's first
    rung over eager skips the steps it left out."""
    if not row.get("speedup_prev"):
        return False
    if row.get("prev_rung") != "eager":
        return True
    group = (row.get("model"), row.get("batch_size"))
    first = next(r.get("part", 0) for r in doc["rows"]
                 if (r.get("model"), r.get("batch_size")) == group)
    return row.get("part", 0) == first


def commands(doc: dict[str, Any]) -> dict[int, int]:
    """Each row's command (block) number within its ladder, by ``id`` of the row."""
    return {id(p.row): p.run for p in placed(doc)}


def _step(doc: dict[str, Any], model: str, bs: int, command: dict[int, int]) -> BestStep | None:
    steps = [r for r in doc["rows"] if r["model"] == model and r["batch_size"] == bs
             and one_step(doc, r) and r["status"] in typed.TIMED]
    if not steps:
        return None
    top = max(steps, key=lambda r: r["speedup_prev"])
    buys = top["speedup_prev"] > 1 + NOISE
    return BestStep(top["mode"], top.get("prev_rung"), top["speedup_prev"],
                    Step.BUYS if buys else Step.NONE,
                    evidence.within_noise(doc, top) if buys else None,
                    command[id(top)])


def ladders(doc: dict[str, Any]) -> Ladders:
    """The findings of one ladder run."""
    ceil = doc["provenance"].get("ceilings")
    command = commands(doc)
    found = []
    for model, bs in dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]):
        best = goals.best(doc, model, bs)
        if best is None:
            continue
        found.append(Ladder(
            model, bs, best["mode"],
            # Against eager only where its own run's eager row is in the file, as the table
            # shows it: another run's eager was timed in other rounds.
            best.get("speedup") if best["mode"] != "eager" and typed.own_baseline(
                doc["rows"], best, is_eager) else None,
            evidence.eager_fastest(doc, best), evidence.freezing_profile(best),
            _step(doc, model, bs, command), roofline.roof(best, ceil), command[id(best)]))
    rungs = [r for r in doc["rows"] if r.get("rung")]
    return Ladders(
        device=doc["provenance"].get("device_type") or "", ceilings=_ceilings(doc),
        apart=evidence.other_commands(doc), ladders=tuple(found),
        slower=evidence.slower_steps(doc), rows=len(doc["rows"]),
        failed=sum(r["status"] in typed.FAILED for r in doc["rows"]),
        first_compiles=evidence.first_compiles(doc), cache_empty=evidence.cache_was_empty(doc),
        shared_code=bool(rungs) and not any("key" in r["rung"] for r in rungs),
        noise_pct=100 * NOISE, fastpath=any(x.eager and x.eager.fastpath for x in found),
        prepacked=any(x.frozen and x.frozen.packed is evidence.Packed.PREPACKED for x in found),
        unpacked=any(x.frozen and x.frozen.packed is evidence.Packed.PLAIN for x in found))


# ---- try first -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Paid:
    """One step's geometric-mean speedup over the rung below, over the ladders where it ran and
    computed eager's answer."""

    mode: str
    gmean: float
    ladders: int


def paid(doc: dict[str, Any]) -> tuple[Paid, ...]:
    """The steps in the order they paid in this run."""
    gains: dict[str, list[float]] = {}
    for r in doc["rows"]:
        if one_step(doc, r) and r["status"] in typed.TIMED:
            gains.setdefault(r["mode"], []).append(r["speedup_prev"])
    ranked = sorted(((math.exp(sum(map(math.log, v)) / len(v)), k, len(v))
                     for k, v in gains.items()), reverse=True)
    return tuple(Paid(k, g, n) for g, k, n in ranked)


# ---- the settings grid ----------------------------------------------------------------------

def settings(doc: dict[str, Any]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The models and batch sizes the settings grid was measured over: its verdicts' groups."""
    sizes: dict[str, list[int]] = {}
    for model, bs in dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]):
        sizes.setdefault(model, []).append(bs)
    return tuple((m, tuple(b)) for m, b in sizes.items())


@dataclass(frozen=True)
class Speed:
    """Everything the page reads from one ladder run."""

    ladder: Ladders
    goals: goals.Goals
    autotuned: Autotuned


def of(doc: dict[str, Any]) -> Speed:
    """The findings of one ladder run, for the page."""
    return Speed(ladders(doc), goals.of(doc), autotuned(doc))
