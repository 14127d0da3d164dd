"""What the graph-breaks page's runs say, as data: the numbers and verdicts its prose reads."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core import measure
from snippets.core.findings import Verdict, verdict
from snippets.explain import breaks
from snippets.explain import fastpath as fp

# ---- what a break costs ----------------------------------------------------------------------


@dataclass(frozen=True)
class Fix:
    """A fix against its cause's broken variant, both compiled, in rounds interleaved per cause."""

    cause: str
    variant: str
    broken: str
    speedup: float  # the broken version's median over the fix's: above 1, the fix is faster
    spread: float  # the IQR of the per-round ratios
    verdict: Verdict


# A compiled call whose device work is within this share of eager's fused nothing away; one
# whose timed median is more than HOST_MARGIN times its kernels' busy time left the device idle
# between them, waiting on the host (Python, guards, launches, or a value the host waited for).
SAME_WORK = 0.10
HOST_MARGIN = 1.10


class Pace(str, enum.Enum):
    """What set a compiled call's pace in its profile: the device's kernels, or the host."""

    DEVICE = "device"
    HOST = "host"


@dataclass(frozen=True)
class Profiled:
    """One variant's profile, eager and compiled: kernels and device busy time a call (the
    union of its kernels' spans, in microseconds), beside the compiled call's timed median."""

    cause: str
    variant: str
    kernels_eager: float
    kernels_compiled: float
    busy_us_eager: float
    busy_us_compiled: float
    compiled_us: float
    verdict: Verdict  # of the paired per-round ratios, as Costs.slower counts them
    same_work: bool  # the compiled kernels' busy time is within SAME_WORK of eager's
    compiled_pace: Pace


@dataclass(frozen=True)
class Costs:
    batch: int | None  # rows through each block a call (the run's size), where the run says
    rows: int
    slower: int  # variants that ran slower compiled than eager, beyond their rounds' spread
    fixed_slower: int  # of those, fixed versions
    numpy: tuple[str, ...]  # the variants that hand the tensor to NumPy, in the file's order
    fixes: tuple[Fix, ...]  # every fix against its broken version, in the file's order
    profiled: tuple[Profiled, ...] = ()  # the variants a profiled run profiled, in its order
    failed: tuple[tuple[str, str, str], ...] = ()  # (cause, variant, fault) compiled side failed

    same_work_pct = 100 * SAME_WORK
    host_over_pct = 100 * (HOST_MARGIN - 1)  # how much longer than its kernels a call waits
    # Counts of the profiled variants, as the page places them.
    same_work = property(lambda self: sum(p.same_work for p in self.profiled))
    same_work_slower = property(lambda self: sum(p.same_work and p.verdict is Verdict.SLOWER
                                                 for p in self.profiled))
    host_paced = property(lambda self: sum(p.compiled_pace is Pace.HOST for p in self.profiled))
    profiled_count = property(lambda self: len(self.profiled))
    # The fix the page reads in full.
    flag = property(lambda self: next((p for p in self.profiled
                                       if p.variant == "guarded by a flag"), None))
    # The fixes by the verdict of their speedup over the broken version, both compiled.
    fixes_pay = property(lambda self: self._fixes(Verdict.PAYS))
    fixes_tie = property(lambda self: self._fixes(Verdict.WITHIN_NOISE))
    fixes_slower = property(lambda self: self._fixes(Verdict.SLOWER))

    def _fixes(self, said: Verdict) -> tuple[str, ...]:
        return tuple(f.variant for f in self.fixes if f.verdict is said)


def _ms(row: dict[str, Any], side: str) -> measure.Measurement:
    return measure.Measurement.from_dict(row[f"{side}_ms"])


def paired(row: dict[str, Any]) -> tuple[float, float, Verdict]:
    """A cost row's speedup of compiled over eager: the median of its paired per-round ratios,
    their IQR, and the verdict of the two (what "slower" counts)."""
    ratio = measure.speedup(_ms(row, "eager"), _ms(row, "compiled"))
    return ratio.value, ratio.iqr, verdict(ratio.value, ratio.iqr)


def costs(doc: dict[str, Any]) -> Costs:
    # A variant whose compiled side failed (one a CUDA graph cannot capture) has no speedup:
    # it is counted apart (``failed``), and the rest are read as before.
    failed = tuple((r["cause"], r["variant"], r.get("message", "")) for r in doc["rows"]
                   if r["compiled_ms"] is None)
    rows = [r for r in doc["rows"] if r["compiled_ms"] is not None]
    # Slower by the verdict of the paired per-round ratios, not by a median ratio under 1: a
    # row at 0.99x whose rounds straddle 1 is a tie.
    slower = [r for r in rows if paired(r)[2] is Verdict.SLOWER]
    broken = {r["cause"]: r for r in rows if r["kind"] == "broken"}
    fixes = []
    for r in rows:
        base = broken.get(r["cause"])
        if r["kind"] != "fixed" or base is None:
            continue
        ratio = measure.speedup(_ms(base, "compiled"), _ms(r, "compiled"))
        fixes.append(Fix(r["cause"], r["variant"], base["variant"], ratio.value, ratio.iqr,
                         verdict(ratio.value, ratio.iqr)))
    # By the example's flag, found by the keys the producer wrote (cause title, variant name).
    hands_to_numpy = {(c.title, v.name) for c in breaks.CAUSES for v in (c.broken, *c.fixes)
                      if v.numpy}
    numpy = tuple(r["variant"] for r in rows if (r["cause"], r["variant"]) in hands_to_numpy)
    batch = doc.get("provenance", {}).get("settings", {}).get("batch")
    profiled = tuple(p for r in rows if (p := profiled_row(r)) is not None)
    return Costs(batch, len(rows), len(slower), sum(r["kind"] == "fixed" for r in slower), numpy,
                 tuple(fixes), profiled, failed)


def profiled_row(row: dict[str, Any]) -> Profiled | None:
    """A row's profile as a finding; None for a row not profiled, or whose profiler failed."""
    prof = row.get("profile") or {}
    eager, comp = prof.get("eager") or {}, prof.get("compiled") or {}
    if "busy_us_per_call" not in eager or "busy_us_per_call" not in comp:
        return None
    busy_e, busy_c = eager["busy_us_per_call"], comp["busy_us_per_call"]
    compiled_us = row["compiled_ms"]["median"] * 1e3
    return Profiled(
        row["cause"], row["variant"], eager["kernels_per_call"], comp["kernels_per_call"],
        busy_e, busy_c, compiled_us, paired(row)[2], abs(busy_c - busy_e) <= SAME_WORK * busy_e,
        Pace.HOST if compiled_us > HOST_MARGIN * busy_c else Pace.DEVICE)


# ---- the transformer's fast path -------------------------------------------------------------

EAGER, EAGER_OFF, COMPILED, COMPILED_OFF = fp.VARIANTS


class Ranked(str, enum.Enum):
    """Whether the variants' medians lie further apart than the widest IQR among them."""

    APART = "apart"
    WITHIN_SPREAD = "within spread"


@dataclass(frozen=True)
class FastpathBatch:
    """One batch size's times over eager's (eager with its fast path, as the benchmark runs it)."""

    batch: int
    compiled_of_eager: float
    compiled_off_of_eager: float
    off_of_on: float  # compiled without the fast path over compiled with it
    fastest: str
    off_verdict: Verdict  # of off_of_on and its per-round spread: did switching it off pay


@dataclass(frozen=True)
class Spread:
    """One batch size: how far apart its variants' medians lie against the widest IQR."""

    batch: int
    variants: int
    span_ms: float
    widest_iqr_ms: float
    widest: str
    rounds: int | None  # where the run says
    ranked: Ranked


@dataclass(frozen=True)
class Fastpath:
    batches: tuple[FastpathBatch, ...]
    spreads: tuple[Spread, ...]

    @property
    def off_verdict(self) -> Verdict | None:
        """The verdict every batch shares; None where they differ."""
        found = {b.off_verdict for b in self.batches}
        return found.pop() if len(found) == 1 else None


def _batch(bs: int, rows: list[dict[str, Any]]) -> FastpathBatch:
    by = {r["variant"]: measure.Measurement.from_dict(r["latency_ms"]) for r in rows}
    ms = {name: m.median for name, m in by.items()}
    off = measure.speedup(by[COMPILED], by[COMPILED_OFF])
    return FastpathBatch(bs, ms[COMPILED] / ms[EAGER], ms[COMPILED_OFF] / ms[EAGER],
                         ms[COMPILED_OFF] / ms[COMPILED], min(ms, key=ms.get),
                         verdict(off.value, off.iqr))


def _spread(bs: int, rows: list[dict[str, Any]], rounds: int | None) -> Spread:
    medians = [r["latency_ms"]["median"] for r in rows]
    widest = max(rows, key=lambda r: r["latency_ms"]["iqr"])
    span, iqr = max(medians) - min(medians), widest["latency_ms"]["iqr"]
    return Spread(bs, len(rows), span, iqr, widest["variant"], rounds,
                  Ranked.WITHIN_SPREAD if span < iqr else Ranked.APART)


def fastpath(doc: dict[str, Any]) -> Fastpath:
    rounds = doc["provenance"].get("settings", {}).get("rounds")
    groups: dict[int, list[dict[str, Any]]] = {}
    for r in doc["rows"]:
        groups.setdefault(r["batch_size"], []).append(r)
    # A batch's ratios need all four variants; its spread, any of them.
    return Fastpath(tuple(_batch(bs, rows) for bs, rows in groups.items()
                          if {r["variant"] for r in rows} >= set(fp.VARIANTS)),
                    tuple(_spread(bs, rows, rounds) for bs, rows in groups.items()))


# ---- the explainer against Dynamo's log -------------------------------------------------------

@dataclass(frozen=True)
class Agreement:
    """Of ``cases``, in how many each explainer named exactly the logged lines."""

    cases: int
    snippets: int
    torch: int
    torch_missed: int  # cases where torch._dynamo.explain missed a logged line
    torch_invented: int  # cases where it named a line with no record (a case may count in both)


def agreement(doc: dict[str, Any]) -> Agreement:
    rows = doc["rows"]
    return Agreement(
        len(rows), sum(r["agrees"] for r in rows), sum(r["torch_agrees"] for r in rows),
        sum(bool(set(r["logged"]) - set(r["torch_explain"] or [])) for r in rows),
        sum(bool(set(r["torch_explain"] or []) - set(r["logged"])) for r in rows))
