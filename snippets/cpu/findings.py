"""What a CPU run found, as data: per model and batch, each variant's median against eager fp32's,
each step of the recipe against the one below it, compile's best recipe against the fastest
runtime at the same precision, and the seconds to each variant's first answer."""

from __future__ import annotations

import enum
import math
import statistics
from dataclasses import dataclass, field, replace
from typing import Any

from snippets import cpu
from snippets.core import findings as core
from snippets.core import machine, results
from snippets.core.findings import Span, Verdict

# A row during which other processes took more than this share of the cores is left out of every
# finding (its table cell says "crowded"): two cores shared with a busy neighbour slowed eager
# many times over (OpenMP's threads meet at every operator's end), while rows that ran alone
# recorded under a twentieth.
CROWDED = 0.10
# The done-when of this page's evidence: compile's best recipe within this factor of the fastest
# runtime at its precision counts as level with it; beyond it, the page shows where the time goes.
LEVEL = 1.25
# The recipe's steps, each adding one thing to the one before (channels_last joins freezing).
STEPS = (("eager", "compile"), ("compile", "compile-freezing"),
         ("compile-freezing", "compile-freezing-bf16"))
# compile's recipes and the runtimes set against them, at each precision they ran at
COMPILED = ("compile", "compile-freezing", "compile-freezing-bf16")
RUNTIMES = ("onnxruntime", "openvino-f32", "openvino")


@dataclass(frozen=True)
class Timed:
    """One variant that ran and answered as eager fp32 did: its median and what it ran at."""

    variant: str
    precision: str  # as it ran: fp32, bf16 (OpenVINO's default says which it chose)
    median: float
    first_s: float | None
    rel_err: float | None
    speedup: float | None  # eager fp32's median over this one's; None where eager is missing
    top: str | None = None  # the operator (kernel) its profile found most time in


@dataclass(frozen=True)
class Step:
    """One step of the recipe: ``to`` against ``frm``, the step below it."""

    frm: str
    to: str
    ratio: float  # frm's median over to's: above 1, the step paid
    verdict: Verdict


class Gap(str, enum.Enum):
    """Compile's best recipe against the fastest runtime at the same precision."""

    AHEAD = "ahead"  # compile is faster by more than LEVEL
    LEVEL = "level"  # within LEVEL either way
    BEHIND = "behind"  # the runtime is faster by more than LEVEL


@dataclass(frozen=True)
class Standing:
    precision: str
    compiled: str  # the fastest compiled variant at this precision
    runtime: str  # the fastest runtime at this precision
    ratio: float  # compile's median over the runtime's: above 1, the runtime is faster
    gap: Gap

    @property
    def labels(self) -> tuple[str, str]:
        """The two variants as the tables name them (``+ freezing``, ``OpenVINO f32``)."""
        return cpu.BY_KEY[self.compiled].label, cpu.BY_KEY[self.runtime].label


@dataclass(frozen=True)
class Group:
    """One model at one batch size."""

    model: str
    batch: int
    eager_ms: float | None  # None where eager did not run, or ran crowded
    timed: dict[str, Timed]
    failed: dict[str, str]  # variant -> status: message, for rows that did not run or answer
    steps: tuple[Step, ...]
    standings: tuple[Standing, ...]

    def get(self, variant: str) -> Timed | None:
        return self.timed.get(variant)

    def standing(self, precision: str) -> Standing | None:
        return next((s for s in self.standings if s.precision == precision), None)


@dataclass(frozen=True)
class Cpu:
    groups: tuple[Group, ...]
    capability: dict[str, Any]  # as recorded; empty for a file that did not record it
    bf16_hardware: bool | None  # None: not recorded
    level: float = LEVEL  # the factor within which compile counts as level with a runtime
    # The share of the machine's cores other processes took while each variant ran, over the
    # rows that recorded it (None: none did): how free the cores were.
    others: Span | None = None
    crowded: int = 0  # timed rows left out of every finding: others took over CROWDED
    rows: int = 0
    crowded_at: float = CROWDED
    # What the page places, each read once (``_placed``); at ``batch``, the first batch timed,
    # where a reading names one. Speedups are over eager fp32, a step's over the step below.
    batch: int | None = None
    compile_x: Span | None = None
    eager_bf16_x: Span | None = None
    frozen_bf16_x: Span | None = None  # compile-freezing-bf16's
    freezing_paid: tuple[str, ...] = ()  # the models on which freezing paid over compile
    freezing_unpaid: tuple[str, ...] = ()
    freezing_unpaid_later: tuple[str, ...] = ()  # "model · batch" past the first batch
    bf16_step: Span | None = None  # autocast over fp32 freezing
    bf16_paid: tuple[str, ...] = ()
    bf16_unpaid: tuple[str, ...] = ()
    # "model · batch" where the bf16 step did not pay at a batch after ``batch``: the advice,
    # read at the first batch, must not hide a larger batch that lost
    bf16_unpaid_later: tuple[str, ...] = ()
    bf16_errors: Span | None = None  # compile-freezing-bf16's, over every batch
    # at batch 1: the recipe the page advises (in bf16 where the CPU has its instructions), ...
    recipe_first_s: Span | None = None
    onnxruntime_first_s: Span | None = None
    openvino_first_s: Span | None = None
    recipe_x: Span | None = None  # ... and the fastest recipe (``recipe``) over eager, on:
    recipe_models: tuple[str, ...] = ()
    openvino_ran_at: tuple[str, ...] = ()  # the precisions OpenVINO's default chose
    gaps: dict[str, int] = field(default_factory=dict)  # standings per gap: level, behind, ahead
    # where a runtime ran ahead of compile's best by more than LEVEL: the page shows profiles
    behind: tuple[tuple[Group, Standing], ...] = ()
    # the transformer's top operator at batch 8, frozen in bf16 (the page explains aten::bmm)
    encoder_bf16_top: str | None = None

    def group(self, model: str, batch: int) -> Group | None:
        return next((g for g in self.groups if (g.model, g.batch) == (model, batch)), None)

    def at(self, batch: int) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.batch == batch)

    @property
    def batches(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(g.batch for g in self.groups))

    def speedups(self, variant: str, batch: int) -> Span | None:
        """The range of ``variant``'s speedup over eager fp32 across the models at ``batch``."""
        return _span(self.at(batch), variant, "speedup")

    def step(self, frm: str, to: str, batch: int) -> Span | None:
        """The range of one recipe step's ratio across the models at ``batch``."""
        found = [s.ratio for g in self.at(batch) for s in g.steps if (s.frm, s.to) == (frm, to)]
        return Span.of(found) if found else None

    def paid(self, frm: str, to: str, batch: int, pays: bool = True) -> tuple[str, ...]:
        """The models at ``batch`` on which the step ``frm`` to ``to`` paid (not ``pays``: did
        not)."""
        return tuple(g.model for g in self.at(batch) for s in g.steps
                     if (s.frm, s.to) == (frm, to) and (s.verdict is Verdict.PAYS) is pays)

    def unpaid_later(self, frm: str, to: str) -> tuple[str, ...]:
        """"model · batch" for each batch past the first where the step did not pay."""
        return tuple(f"{m} · {n}" for n in self.batches[1:] for m in self.paid(frm, to, n, False))

    def first_s(self, variant: str, batch: int = 1) -> Span | None:
        """The range of ``variant``'s seconds to its first answer across the models."""
        return _span(self.at(batch), variant, "first_s")

    @property
    def recipe(self) -> str | None:
        """compile's recipe (of ``COMPILED``) with the highest geometric-mean speedup over eager."""
        means = {}
        for key in COMPILED:
            found = [g.timed[key].speedup for g in self.groups
                     if key in g.timed and g.timed[key].speedup is not None]
            if found:
                means[key] = math.exp(statistics.fmean(map(math.log, found)))
        return max(means, key=means.__getitem__) if means else None

    def errors(self, variant: str) -> Span | None:
        """The range of ``variant``'s error against eager fp32 across the groups."""
        return _span(self.groups, variant, "rel_err")


def _span(groups: tuple[Group, ...], variant: str | None, what: str) -> Span | None:
    found = [getattr(g.timed[variant], what) for g in groups if variant in g.timed]
    found = [v for v in found if v is not None]
    return Span.of(found) if found else None


def spread(a: Any, b: Any, ratio: float) -> float:
    """The band of a ratio of two medians from separate processes: their relative IQRs summed."""
    return ratio * (a.iqr / a.median + b.iqr / b.median)


def _group(model: str, batch: int, found: list[Any], prov: dict[str, Any]) -> Group:
    by = {r.key.variant: r for r in found}
    timed, failed, kept = {}, {}, {}
    for key, r in by.items():
        share = others_share(r.fields, prov)
        if r.timed and share is not None and share > CROWDED:
            failed[key] = f"crowded: others {100 * share:.0f}%"
        elif not r.timed:
            failed[key] = r.status.value + (f": {r.get('message')}" if r.get("message") else "")
        else:
            kept[key] = r
    eager = kept.get(cpu.BASELINE)
    for key, r in kept.items():
        ratio = eager.median / r.median if eager else None
        timed[key] = Timed(key, r.get("precision") or "fp32", r.median, r.get("first_s"),
                           r.get("rel_err"), ratio, top_operator(r.get("profile")))
    by = kept
    steps = []
    for frm, to in STEPS:
        if frm in timed and to in timed:
            ratio = by[frm].median / by[to].median
            steps.append(Step(frm, to, ratio,
                              core.verdict(ratio, spread(by[frm].time, by[to].time, ratio))))
    standings = []
    for precision in dict.fromkeys(t.precision for t in timed.values()):
        mine = [timed[k] for k in COMPILED if k in timed and timed[k].precision == precision]
        theirs = [timed[k] for k in RUNTIMES if k in timed and timed[k].precision == precision]
        if mine and theirs:
            c = min(mine, key=lambda t: t.median)
            r = min(theirs, key=lambda t: t.median)
            ratio = c.median / r.median
            gap = Gap.BEHIND if ratio > LEVEL else Gap.AHEAD if ratio < 1 / LEVEL else Gap.LEVEL
            standings.append(Standing(precision, c.variant, r.variant, ratio, gap))
    return Group(model, batch, eager.median if eager else None, timed, failed, tuple(steps),
                 tuple(standings))


def of(doc: dict[str, Any]) -> Cpu:
    found = results.typed_rows(doc)
    prov = doc["provenance"]
    keys = dict.fromkeys((r.key.model, r.key.batch) for r in found)
    groups = [_group(m, b, [r for r in found if (r.key.model, r.key.batch) == (m, b)], prov)
              for m, b in keys]
    cap = prov.get("cpu_capability") or {}
    shares = [s for r in doc["rows"] if (s := others_share(r, prov)) is not None]
    crowded = sum(1 for g in groups for m in g.failed.values() if m.startswith("crowded"))
    f = Cpu(tuple(groups), cap, machine.bf16_in_hardware(cap) if cap else None,
            others=Span.of(shares) if shares else None, crowded=crowded, rows=len(doc["rows"]))
    return replace(f, **_placed(f))


def _placed(f: Cpu) -> dict[str, Any]:
    b = f.batches[0] if f.groups else None
    freezing, bf16 = ("compile", "compile-freezing"), ("compile-freezing", "compile-freezing-bf16")
    standings = [(g, s) for g in f.groups for s in g.standings]
    top = f.group("transformer", 8)
    top = top.get("compile-freezing-bf16") if top else None
    return dict(
        batch=b, compile_x=f.speedups("compile", b), eager_bf16_x=f.speedups("eager-bf16", b),
        frozen_bf16_x=f.speedups("compile-freezing-bf16", b),
        freezing_paid=f.paid(*freezing, b), freezing_unpaid=f.paid(*freezing, b, False),
        freezing_unpaid_later=f.unpaid_later(*freezing),
        bf16_step=f.step(*bf16, b), bf16_paid=f.paid(*bf16, b),
        bf16_unpaid=f.paid(*bf16, b, False),
        bf16_unpaid_later=f.unpaid_later(*bf16),
        bf16_errors=f.errors("compile-freezing-bf16"),
        recipe_first_s=f.first_s(bf16[1] if f.bf16_hardware else bf16[0]),
        onnxruntime_first_s=f.first_s("onnxruntime"), openvino_first_s=f.first_s("openvino"),
        recipe_x=f.speedups(f.recipe, 1), recipe_models=tuple(
            g.model for g in f.at(1) if g.get(f.recipe) and g.timed[f.recipe].speedup),
        openvino_ran_at=tuple(dict.fromkeys(t.precision for g in f.groups
                                            if (t := g.get("openvino")))),
        gaps={gap.value: sum(s.gap is gap for _, s in standings) for gap in Gap},
        behind=tuple((g, s) for g, s in standings if s.gap is Gap.BEHIND),
        encoder_bf16_top=top.top if top else None)


def top_operator(profile: dict[str, Any] | None) -> str | None:
    """The name a profile lists first (most time), or None where there is no profile."""
    top = (profile or {}).get("top") or []
    return top[0]["name"] if top else None


def others_share(row: dict[str, Any], prov: dict[str, Any]) -> float | None:
    """The share of the cores other processes took while the row's process ran."""
    cores, wall, others = prov.get("cpu_count"), row.get("wall_s"), row.get("others_cpu_s")
    if not cores or not wall or others is None:
        return None
    return others / (wall * cores)

