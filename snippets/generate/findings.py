"""What a generation run says, as data: per phase and batch size, the fastest variant against
eager and against the ceiling it is read against, and whether the compiled tokens kept eager's."""

from __future__ import annotations

import enum
import statistics
from dataclasses import dataclass
from typing import Any

from snippets.core import measure
from snippets.core.findings import Span, Verdict, verdict
from snippets.generate import DTYPES, model

TIMED = ("ok", "noisy")


class Tokens(str, enum.Enum):
    """How the compiled variants' greedy tokens compare with eager's."""

    SAME = "same"  # every compiled variant generated eager's tokens
    TIES = "ties"  # where they differ, eager's two best logits were equal: a tie either may take
    DIFFER = "differ"  # they differ where eager's best logit was ahead of the next


@dataclass(frozen=True)
class Best:
    """One phase at one batch size: eager, and the fastest variant timed in the same rounds."""

    phase: str
    batch: int
    eager_ms: float
    variant: str
    ms: float
    speedup: float
    verdict: Verdict
    tokens_per_s: float
    share: float  # % of the copy bandwidth (decode) or of the matmul rate (prefill)
    floor_ms: float | None  # decode: the bytes a step must read, at the measured bandwidth
    runner_up: str | None = None  # the next fastest compiled variant
    runner_up_speedup: float | None = None
    apart: bool = True  # the two medians lie further apart than the wider of their IQRs


@dataclass(frozen=True)
class Generation:
    size: str
    weight_gb: float  # the weights one decode step multiplies by, in GB: what it reads at least
    copy_gbps: float
    matmul_tflops: float
    best: tuple[Best, ...]
    compile_s: Span  # every compiled variant's first call
    tokens: Tokens
    first_diff: int | None  # the earliest step any compiled variant left eager's tokens
    widest_gap: float | None  # the largest lead eager's best logit had where tokens parted
    # the batch sizes the page states: the smallest and the largest of the default run
    decode_1: Best | None = None
    decode_32: Best | None = None
    prefill_1: Best | None = None
    prefill_32: Best | None = None


def _best(rows: list[dict[str, Any]], copy_gbps: float) -> Best | None:
    timed = [r for r in rows if r["status"] in TIMED]
    eager = next((r for r in timed if r["variant"] == "eager"), None)
    compiled = [r for r in timed if r["variant"] != "eager"]
    if eager is None or not compiled:
        return None
    top, *rest = sorted(compiled, key=lambda r: r["latency_ms"]["median"])
    decode = top["phase"] == "decode"
    second = rest[0] if rest else None
    t, n = top["latency_ms"], second["latency_ms"] if second else None
    return Best(top["phase"], top["batch_size"], eager["latency_ms"]["median"], top["variant"],
                t["median"], top["speedup"],
                verdict(top["speedup"], top.get("speedup_iqr") or 0.0), top["tokens_per_s"],
                top["pct_of_bandwidth"] if decode else top["pct_of_peak"],
                top["bytes"] / (copy_gbps * 1e9) * 1e3 if decode else None,
                second["variant"] if second else None, second["speedup"] if second else None,
                n is None or n["median"] - t["median"] > max(t["iqr"], n["iqr"]))


def read_per_token(doc: dict[str, Any]) -> int:
    """The weights a decode step multiplies by, in bytes: what it must read at least, before
    the cache (the embedding table is only indexed)."""
    st = doc["provenance"]["settings"]
    return model.Shape(**st["shape"]).matmul_params * DTYPES[st["dtype"]].itemsize


def of(doc: dict[str, Any]) -> Generation:
    prov = doc["provenance"]
    s, ceil = prov["settings"], prov["ceilings"]
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in doc["rows"]:
        groups.setdefault((r["phase"], r["batch_size"]), []).append(r)
    best = tuple(b for rows in groups.values() if (b := _best(rows, ceil["copy_gbps"])))
    at = {(b.phase, b.batch): b for b in best}
    compiled = [r for r in doc["rows"] if r["variant"] != "eager" and r["status"] in TIMED]
    diffs = [r for r in compiled if r.get("first_diff") is not None]
    tokens = (Tokens.SAME if not diffs else
              Tokens.TIES if all(r["logit_gap"] == 0 for r in diffs) else Tokens.DIFFER)
    return Generation(
        s["size"], read_per_token(doc) / 1e9, ceil["copy_gbps"],
        ceil["matmul_tflops"], best, Span.of([r["compile_s"] for r in compiled]), tokens,
        min((r["first_diff"] for r in diffs), default=None),
        max((r["logit_gap"] for r in diffs), default=None), at.get(("decode", 1)),
        at.get(("decode", 32)), at.get(("prefill", 1)), at.get(("prefill", 32)))


@dataclass(frozen=True)
class Against:
    """One variant against another timed in the same rounds, at one phase and batch size:
    ``ratio`` is the other's time over this one's (below 1: this one is slower)."""

    phase: str
    batch: int
    variant: str
    baseline: str
    ratio: float
    spread: float  # IQR of the paired per-round ratios
    verdict: Verdict

    @property
    def band(self) -> float:
        """Half the spread: the ratio give or take this holds half the rounds (``Verdict``)."""
        return self.spread / 2


@dataclass(frozen=True)
class Pairs:
    """Every phase and batch size where both variants were timed, over several runs' files."""

    pairs: tuple[Against, ...]
    paired: int = 0  # how many
    slower: int = 0  # pairings where the variant was slower
    slower_ratios: Span | None = None  # their ratios
    decode_slower: tuple[int, ...] = ()  # the batch sizes, per phase, where it was slower
    prefill_slower: tuple[int, ...] = ()
    gain: Against | None = None  # the first decode pairing where it paid
    decode_1: Against | None = None


def against(*docs: dict[str, Any] | None, variant: str = "max-autotune",
            baseline: str = "reduce-overhead") -> Pairs:
    """``variant`` against ``baseline`` wherever one file timed both in the same rounds."""
    found = []
    for doc in docs:
        rows = {(r["phase"], r["batch_size"], r["variant"]): r for r in (doc or {}).get("rows", ())
                if r["status"] in TIMED}
        for (phase, batch, name), row in rows.items():
            base = rows.get((phase, batch, baseline))
            if name != variant or base is None:
                continue
            ratio = measure.speedup(measure.Measurement.from_dict(base["latency_ms"]),
                                    measure.Measurement.from_dict(row["latency_ms"]))
            found.append(Against(phase, batch, variant, baseline, ratio.value, ratio.iqr,
                                 verdict(ratio.value, ratio.iqr)))
    slow = [p for p in found if p.verdict is Verdict.SLOWER]
    decode = sorted((p for p in found if p.phase == "decode"), key=lambda p: p.batch)
    return Pairs(tuple(found), len(found), len(slow),
                 Span.of([p.ratio for p in slow]) if slow else None,
                 *(tuple(sorted({p.batch for p in slow if p.phase == phase}))
                   for phase in ("decode", "prefill")),
                 next((p for p in decode if p.verdict is Verdict.PAYS), None),
                 next((p for p in decode if p.batch == 1), None))


@dataclass(frozen=True)
class Split:
    """max-autotune's loss against reduce-overhead at one phase and batch size, split in two by
    a variant that autotunes the products alone: ``products`` is that variant against
    reduce-overhead, ``rest`` the whole mode against that variant (what its other changes cost)."""

    products: Against
    rest: float

    @property
    def batch(self) -> int:
        return self.products.batch

    @property
    def rest_loses_more(self) -> bool:
        """The other changes cost more than the products' kernels."""
        return self.rest < self.products.ratio


@dataclass(frozen=True)
class Splits:
    splits: tuple[Split, ...]

    @property
    def rest_loses_more(self) -> bool:
        """At every split, the other changes cost more than the products' kernels."""
        return bool(self.splits) and all(s.rest_loses_more for s in self.splits)


def split(doc: dict[str, Any] | None, part: str = "max-autotune-gemm",
          variant: str = "max-autotune", baseline: str = "reduce-overhead") -> Splits:
    """Per phase and batch size where one file timed ``baseline``, ``part`` and ``variant``."""
    parts = {(p.phase, p.batch): p for p in against(doc, variant=part, baseline=baseline).pairs}
    found = []
    for w in against(doc, variant=variant, baseline=baseline).pairs:
        p = parts.get((w.phase, w.batch))
        if p is not None:
            found.append(Split(p, w.ratio / p.ratio))
    return Splits(tuple(found))


@dataclass(frozen=True)
class Trap:
    """One trap of a decode loop beside its fix: compiles, compile seconds, and the fix's
    speedup where both were timed."""

    trap: str
    compiles: int | None
    compile_s: float | None
    fix_compiles: int | None
    fix_compile_s: float | None
    speedup: float | None  # the fix over the trap, in the same rounds
    verdict: Verdict | None


# Each trap's row and the row of its fix, by variant, as the traps command records them.
FIXES = {"growing-cache": ("torch.cat", "static cache"),
         "item-sync": (".item() per token", "argmax in the step"),
         "prompt-lengths": ("dynamic=False", "pad to buckets")}


@dataclass(frozen=True)
class Traps:
    growing_cache: Trap | None
    item_sync: Trap | None
    prompt_lengths: Trap | None


def traps(doc: dict[str, Any]) -> Traps:
    by = {(r["trap"], r["variant"]): r for r in doc["rows"]}
    out = {}
    for trap, (bad, good) in FIXES.items():
        b, g = by.get((trap, bad)), by.get((trap, good))
        if not (b and g):
            continue
        fast = g.get("speedup") if g["status"] in TIMED else None
        out[trap] = Trap(trap, b.get("compiles"), b.get("compile_s"), g.get("compiles"),
                         g.get("compile_s"), fast,
                         verdict(fast, g.get("speedup_iqr") or 0.0) if fast else None)
    return Traps(*(out.get(t) for t in FIXES))


# The guide's decode recipe (the whole step, reduce-overhead, fullgraph, one static graph per
# batch size) timed against eager in the same rounds: a generate run's reduce-overhead variant,
# and the ladder's cudagraphs rung, which compiles the same step the same way
# (ladder_findings.ladder).
RECIPE_ROW = (("variant", "reduce-overhead"), ("rung", "cudagraphs"))


@dataclass(frozen=True)
class Figure:
    """The decode recipe's speedup over eager at one size and batch: the median over every
    recorded run, as eager's host-bound step moves from run to run; every page states this."""

    size: str
    batch: int
    runs: int
    median: float
    speedup: Span
    key: str = ""  # the configuration, as ``headline`` names it ("device · decoder size · batch · step")


@dataclass(frozen=True)
class Figures:
    figures: tuple[Figure, ...]
    batch_1: Figure | None = None  # the 1b decoder's, as the pages state them
    batch_32: Figure | None = None

    def at(self, batch: int, size: str = "1b") -> Figure | None:
        return next((f for f in self.figures if (f.size, f.batch) == (size, batch)), None)


def figures(*docs: dict[str, Any] | None) -> Figures:
    """Every decode recipe row of ``docs`` (generate and ladder documents; None for a kind with
    no run), one figure per model size and batch size."""
    found: dict[tuple[str, int], list[float]] = {}
    docs = tuple(d for d in docs if d is not None)
    device = docs[0]["provenance"].get("device") if docs else None
    for doc in docs:
        size = doc["provenance"]["settings"]["size"]
        for r in doc["rows"]:
            if (r["status"] in TIMED and r.get("phase", "decode") == "decode" and r.get("speedup")
                    and any(r.get(k) == v for k, v in RECIPE_ROW)):
                found.setdefault((size, r["batch_size"]), []).append(r["speedup"])
    made = {k: Figure(k[0], k[1], len(v), statistics.median(v), Span.of(v),
                      f"{device} · decoder {k[0]} · batch {k[1]} · decode, reduce-overhead")
            for k, v in sorted(found.items())}
    return Figures(tuple(made.values()), made.get(("1b", 1)), made.get(("1b", 32)))
