"""The evidence a results file holds for a surprising ladder row, as frozen findings (None where
it is not there): a gain within the spread, eager fastest, a frozen rung's CPU profile, a slower
step, ratios from another command's rounds, a long first compile."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core import measure
from snippets.core import rows as typed
from snippets.core.findings import Span

# The fused native call nn.TransformerEncoderLayer makes in eval mode without grad (its "fast
# path"): Dynamo records it as one opaque call per layer, so a compiled rung runs the same kernel.
FASTPATH_OP = "aten::_transformer_encoder_layer_fwd"
# Operators of oneDNN that take weights packed ahead of the call: what Inductor's freezing passes
# put in place of a convolution or linear layer on a CPU when they prepack its weights.
PACKED_PREFIX = "mkldnn::"
# A first compile counts as "longer" when it takes more than this many times the slowest later
# one: a ratio, not a timing, so the page says so only where the gap is plain.
FIRST_COMPILE_RATIO = 1.5


@dataclass(frozen=True)
class Kernel:
    """One kernel or operator of a profile, per call of the model."""

    name: str
    share_pct: float
    count_per_call: float

    @classmethod
    def of(cls, k: dict[str, Any]) -> Kernel:
        return cls(k["name"], 100 * (k.get("share") or 0), k.get("count_per_call") or 0)


def spread_pct(row: dict[str, Any] | None) -> float | None:
    """A row's IQR as a percentage of its median."""
    lat = (row or {}).get("latency_ms") or {}
    return 100 * lat["iqr"] / lat["median"] if lat.get("median") else None


def rung(doc: dict[str, Any], like: dict[str, Any], mode: str | None) -> dict[str, Any] | None:
    """The row of ``mode`` in the ladder of ``like``, from ``like``'s own command if it has one."""
    found = [r for r in doc["rows"] if r["model"] == like["model"]
             and r["batch_size"] == like["batch_size"] and r["mode"] == mode]
    return min(found, key=lambda r: r.get("part", 0) != like.get("part", 0), default=None)


def within_noise(doc: dict[str, Any], row: dict[str, Any]) -> tuple[float, ...] | None:
    """The two rows' spreads (IQR %) where a step's gain over the rung below is within them;
    None where it stands out."""
    gain = 100 * (row["speedup_prev"] - 1)
    spreads = tuple(s for s in (spread_pct(row), spread_pct(rung(doc, row, row.get("prev_rung"))))
                    if s is not None)
    return spreads if spreads and abs(gain) <= max(spreads) else None


@dataclass(frozen=True)
class EagerFastest:
    """Eager is the fastest rung: its top operator, whether that is the fused fast path, and what
    the compiled rungs returned and ran at."""

    top: Kernel
    fastpath: bool
    bit_exact: bool  # every compiled rung returned eager's output bit for bit
    compiled: Span | None  # the compiled rungs' speedups over eager


def eager_fastest(doc: dict[str, Any], best: dict[str, Any]) -> EagerFastest | None:
    """Where eager is the fastest rung and was profiled, what it runs; None else."""
    top = ((best.get("profile") or {}).get("top") or [None])[0]
    if best["mode"] != "eager" or top is None:
        return None
    compiled = [r for r in doc["rows"] if r["model"] == best["model"]
                and r["batch_size"] == best["batch_size"] and r["mode"] != "eager"
                and r.get("speedup") is not None]
    return EagerFastest(
        Kernel.of(top), top["name"] == FASTPATH_OP,
        bool(compiled) and all(r.get("rel_err") == 0 for r in compiled),
        Span.of([r["speedup"] for r in compiled]) if compiled else None)


class Packed(str, enum.Enum):
    """What a frozen rung's profile on a CPU shows in place of the convolutions."""

    PREPACKED = "prepacked"  # oneDNN's operators with weights packed once
    PLAIN = "plain"  # the plain aten::convolution still ran


@dataclass(frozen=True)
class FrozenProfile:
    packed: Packed
    kernel: Kernel  # the prepacked operator, or aten::convolution


def freezing_profile(row: dict[str, Any]) -> FrozenProfile | None:
    """Whether a frozen rung's CPU profile shows oneDNN's prepacked operators or plain
    convolutions; None where there is no such profile."""
    prof = row.get("profile") or {}
    if not (row.get("rung") or {}).get("freezing") or prof.get("device_type") != "cpu":
        return None
    top = prof.get("top") or []
    packed = [k for k in top if k["name"].startswith(PACKED_PREFIX)]
    if packed:
        return FrozenProfile(Packed.PREPACKED, Kernel.of(packed[0]))
    conv = next((k for k in top if k["name"] == "aten::convolution"), None)
    return None if conv is None else FrozenProfile(Packed.PLAIN, Kernel.of(conv))


@dataclass(frozen=True)
class FirstCompile:
    """A ladder whose first compiled rung took plainly longer to compile than the later ones."""

    model: str
    batch: int
    mode: str
    first_s: float
    later_s: Span


def first_compiles(doc: dict[str, Any]) -> tuple[FirstCompile, ...]:
    """Every ladder whose first compile takes over ``FIRST_COMPILE_RATIO`` × the slowest later."""
    found = []
    for model, bs in dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]):
        timed = [r for r in doc["rows"] if r["model"] == model and r["batch_size"] == bs
                 and r.get("compile_s") is not None]
        if len(timed) < 2:
            continue
        first, later = timed[0], [r["compile_s"] for r in timed[1:]]
        if first["compile_s"] > FIRST_COMPILE_RATIO * max(later):
            found.append(FirstCompile(model, bs, first["mode"], first["compile_s"],
                                      Span.of(later)))
    return tuple(found)


def cache_was_empty(doc: dict[str, Any]) -> bool:
    """Inductor's FX graph cache held no graph when the run began."""
    cache = doc["provenance"].get("settings", {}).get("inductor_cache") or {}
    return cache.get("fx_graphs_before") == 0


def label(r: dict[str, Any]) -> str:
    """A row's key as the tables show it."""
    return f"{r['model']} · {r['batch_size']} · {r['mode']}"


def other_commands(doc: dict[str, Any]) -> tuple[str, ...]:
    """The rows whose ratios were timed in their command's rounds while the file shows the rung
    below as another command recorded it."""
    out = []
    for r in doc["rows"]:
        below = rung(doc, r, r.get("prev_rung"))
        if below is not None and below.get("part", 0) != r.get("part", 0):
            out.append(label(r))
    return tuple(out)


@dataclass(frozen=True)
class Profile:
    """A profile per call: kernels, busy time, idle %, the longest kernel."""

    kernels: float
    busy_us: float
    idle_pct: float | None
    longest: Kernel | None

    @classmethod
    def of(cls, p: dict[str, Any]) -> Profile:
        top = (p.get("top") or [None])[0]
        idle = p.get("idle_fraction")
        return cls(p["kernels_per_call"], p["busy_us_per_call"],
                   100 * idle if idle is not None else None, Kernel.of(top) if top else None)


class Profiled(str, enum.Enum):
    """Which of the two rungs of a slower step the file holds a profile of, from one command."""

    BOTH = "both"
    MINE_ONLY = "mine only"  # the rung below is as an earlier command recorded it
    NEITHER = "neither"  # the run profiled only its fastest rung


@dataclass(frozen=True)
class Slower:
    """A step plainly slower than the rung below: its ratio, both rungs' profiles where kept,
    what autotuning measured."""

    model: str
    batch: int
    mode: str
    ratio: float
    below: str | None
    profiled: Profiled
    mine: Profile | None
    theirs: Profile | None


def slower(doc: dict[str, Any], r: dict[str, Any]) -> Slower | None:
    """The finding of one row, where it is a slower step; None else."""
    ratio = r.get("speedup_prev")
    if not ratio or ratio >= 1 - measure.NOISY_IQR_RATIO or r["status"] not in typed.TIMED:
        return None
    below = rung(doc, r, r.get("prev_rung"))
    # The two profiles of the run that measured this ratio: the rung below as that run
    # profiled it, else the file's row of it where the same command recorded both.
    same = below is not None and below.get("part", 0) == r.get("part", 0)
    mine = r.get("profile")
    theirs = r.get("below_profile") or ((below or {}).get("profile") if same else None)
    if mine and theirs and "error" not in mine and "error" not in theirs:
        profiled, pair = Profiled.BOTH, (Profile.of(mine), Profile.of(theirs))
    else:
        profiled = Profiled.MINE_ONLY if mine and "error" not in mine else Profiled.NEITHER
        pair = (None, None)
    return Slower(r["model"], r["batch_size"], r["mode"], ratio, r.get("prev_rung"), profiled,
                  *pair)


def slower_steps(doc: dict[str, Any]) -> tuple[Slower, ...]:
    """Every step of the file that makes its ladder slower."""
    return tuple(s for r in doc["rows"] if (s := slower(doc, r)) is not None)
