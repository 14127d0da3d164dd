"""What a zoo run found, as data (``of``): per family what passed and the geometric-mean speedups,
the rows that did not pay (``outliers``), the tutorial's claims, and whether small work gains most.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from snippets.bench import claims
from snippets.core import rows as typed
from snippets.core.findings import Span, Verdict
from snippets.zoo import DEFAULTS, catalog
from snippets.zoo.outliers import Cause, Outlier, outliers, timed

# The tutorial's two model rows, and the zoo's families that stand for each: its ResNet-50 for
# convolutional networks, its small transformer for every family built of attention blocks.
CLAIM_FAMILIES = {"resnet50": ("convolutional",),
                  "transformer": ("vision transformer", "encoder", "decoder", "encoder-decoder")}
CLAIM_MODE = "default"  # the zoo times default and reduce-overhead; the tutorial's is not run


@dataclass(frozen=True)
class Cell:
    """One family (or the zoo) in one mode and batch size: the geometric mean of its speedups."""

    geomean: float
    span: Span
    models: int
    lowest: str
    highest: str


@dataclass(frozen=True)
class Family:
    name: str
    models: tuple[str, ...]
    passed: int  # models whose every compiled row ran and answered as eager did
    cells: dict[tuple[str, int], Cell]
    compile_s: Span | None  # over the family's compiled rows, each with an empty cache
    compile_median: float | None

    def cell(self, mode: str, batch: int) -> Cell | None:
        return self.cells.get((mode, batch))


class Holds(str, enum.Enum):
    HOLDS = "holds"
    MIXED = "mixed"
    DOES_NOT_HOLD = "does not hold"


@dataclass(frozen=True)
class Trend:
    """The tutorial's "small batches gain the most", in one mode: the models whose batch-1
    speedup is above their batch-32 one, and Spearman's correlation of the speedup with eager's
    latency and with a call's FLOPs."""

    mode: str
    smaller_gains_more: int
    pairs: int
    rho_latency: float | None
    rho_flops: float | None
    verdict: Holds


@dataclass(frozen=True)
class ClaimCheck:
    """One tutorial claim against the zoo families that stand for its model."""

    model: str
    batch: int
    claimed: tuple[float, float]
    families: tuple[str, ...]
    mode: str
    cell: Cell | None
    within: int  # models whose speedup falls inside the claimed range
    verdict: claims.Claim


@dataclass(frozen=True)
class Zoo:
    models: int
    passed: int
    modes: tuple[str, ...]  # the compiled modes, as the run ordered them
    batches: tuple[int, ...]
    families: tuple[Family, ...]
    overall: dict[tuple[str, int], Cell]
    compile_s: Span | None
    compile_median: float | None
    outliers: tuple[Outlier, ...]
    trends: tuple[Trend, ...]
    claims: tuple[ClaimCheck, ...]
    missing: tuple[tuple[str, int], ...]  # (model, batch) the run asked for and has no rows of
    # what the home page places: the whole zoo's cells it names, the models slower somewhere
    ro_1: Cell | None = None  # reduce-overhead at batch 1
    default_32: Cell | None = None
    slower_models: int = 0
    # what the zoo page places
    ro_32: Cell | None = None
    default_1: Cell | None = None
    least_default_32: str | None = None  # the family that gained least, default mode, batch 32
    families_ro_1: Span | None = None  # the families' geometric means, reduce-overhead, batch 1
    trend_ro: Trend | None = None
    trend_default: Trend | None = None
    host_bound_models: tuple[str, ...] = ()  # of the rows that did not pay, by their cause
    kernel_models: tuple[str, ...] = ()
    kernels_only: str | None = None  # the one model of ``kernel_models``, where it is one
    convolutional_lost: bool = False  # a convolutional model among the rows that did not pay

    def family(self, name: str) -> Family | None:
        return next((f for f in self.families if f.name == name), None)

    def cell(self, mode: str, batch: int) -> Cell | None:
        return self.overall.get((mode, batch))

    def trend(self, mode: str) -> Trend | None:
        return next((t for t in self.trends if t.mode == mode), None)

    def ranked(self, mode: str, batch: int) -> tuple[Family, ...]:
        """The families measured in ``mode`` at ``batch``, lowest geometric mean first."""
        found = [f for f in self.families if f.cell(mode, batch)]
        return tuple(sorted(found, key=lambda f: f.cell(mode, batch).geomean))

    def caused(self, cause: Cause | str) -> tuple[Outlier, ...]:
        return tuple(o for o in self.outliers if o.cause is Cause(cause))


def _cell(rows: list[dict[str, Any]]) -> Cell | None:
    if not rows:
        return None
    ranked = sorted(rows, key=lambda r: r["speedup"])
    values = [r["speedup"] for r in ranked]
    return Cell(math.exp(statistics.fmean(math.log(v) for v in values)), Span.of(values),
                len(values), ranked[0]["model"], ranked[-1]["model"])


def _cells(rows: list[dict[str, Any]], modes: Iterable[str], batches: Iterable[int]
           ) -> dict[tuple[str, int], Cell]:
    cells = {}
    for mode in modes:
        for bs in batches:
            cell = _cell([r for r in rows if r["mode"] == mode and r["batch_size"] == bs
                          and timed(r)])
            if cell:
                cells[(mode, bs)] = cell
    return cells


def _compile(rows: list[dict[str, Any]]) -> tuple[Span | None, float | None]:
    times = [r["compile_s"] for r in rows if r["mode"] != "eager" and r.get("compile_s")]
    return (Span.of(times), statistics.median(times)) if times else (None, None)


def _passed(rows: list[dict[str, Any]], model: str) -> bool:
    mine = [r for r in rows if r["model"] == model and r["mode"] != "eager"]
    return bool(mine) and all(timed(r) for r in mine)


def _family(name: str, rows: list[dict[str, Any]], modes: tuple[str, ...],
            batches: tuple[int, ...]) -> Family:
    models = tuple(dict.fromkeys(r["model"] for r in rows))
    span, median = _compile(rows)
    return Family(name, models, sum(_passed(rows, m) for m in models),
                  _cells(rows, modes, batches), span, median)


def spearman(x: list[float], y: list[float]) -> float | None:
    """Spearman's rank correlation (no ties expected in measured times); None under 3 points."""
    if len(x) < 3:
        return None

    def ranks(v: list[float]) -> list[int]:
        order = sorted(range(len(v)), key=v.__getitem__)
        out = [0] * len(v)
        for rank, i in enumerate(order):
            out[i] = rank
        return out
    return statistics.correlation(ranks(x), ranks(y))


def _trend(rows: list[dict[str, Any]], mode: str) -> Trend:
    eager = eager_rows(rows)
    mine = [r for r in rows if r["mode"] == mode and timed(r)
            and (r["model"], r["batch_size"]) in eager]
    by = {(r["model"], r["batch_size"]): r["speedup"] for r in mine}
    small, large = min(r["batch_size"] for r in rows), max(r["batch_size"] for r in rows)
    pairs = [(by[m, small], by[m, large]) for m, b in by if b == small and (m, large) in by]
    gains = sum(a > b for a, b in pairs)
    lat = spearman([eager[r["model"], r["batch_size"]]["latency_ms"]["median"] for r in mine],
                   [r["speedup"] for r in mine])
    with_flops = [r for r in mine if eager[r["model"], r["batch_size"]].get("flops")]
    flops = spearman([eager[r["model"], r["batch_size"]]["flops"] for r in with_flops],
                     [r["speedup"] for r in with_flops])
    verdict = (Holds.HOLDS if pairs and gains >= 0.75 * len(pairs)
               else Holds.DOES_NOT_HOLD if gains <= 0.25 * len(pairs) else Holds.MIXED)
    return Trend(mode, gains, len(pairs), lat, flops, verdict)


def eager_rows(rows: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """The timed eager row of each (model, batch size): what every speedup is against."""
    return {(r["model"], r["batch_size"]): r for r in rows
            if r["mode"] == "eager" and r["status"] in typed.TIMED and r.get("latency_ms")}


def _claims(rows: list[dict[str, Any]]) -> tuple[ClaimCheck, ...]:
    out = []
    for (model, bs), (low, high) in claims.CLAIMED.items():
        families = CLAIM_FAMILIES[model]
        mine = [r for r in rows if r.get("family") in families and r["mode"] == CLAIM_MODE
                and r["batch_size"] == bs and timed(r)]
        cell = _cell(mine)
        verdict = (claims.Claim(claims.verdict(cell.geomean, 0.0, low, high)) if cell
                   else claims.Claim.NOT_MEASURED)
        out.append(ClaimCheck(model, bs, (low, high), families, CLAIM_MODE, cell,
                              sum(low <= r["speedup"] <= high for r in mine), verdict))
    return tuple(out)


def of(doc: dict[str, Any]) -> Zoo:
    """The findings of one zoo results document."""
    rows = doc["rows"]
    settings = doc["provenance"]["settings"]
    modes = tuple(m for m in dict.fromkeys(r["mode"] for r in rows) if m != "eager")
    batches = tuple(sorted({r["batch_size"] for r in rows}))
    order = {f: i for i, f in enumerate(catalog.FAMILIES)}
    names = sorted(dict.fromkeys(r.get("family", "") for r in rows),
                   key=lambda f: order.get(f, len(order)))
    families = tuple(_family(f, [r for r in rows if r.get("family", "") == f], modes, batches)
                     for f in names)
    models = tuple(dict.fromkeys(r["model"] for r in rows))
    seen = {(r["model"], r["batch_size"]) for r in rows}
    # what the run asked for, and what a whole run of the catalog on this device type holds
    whole = DEFAULTS.get(doc["provenance"].get("device_type", ""), {})
    wanted = dict.fromkeys([*settings.get("models", ()), *whole.get("models", ())])
    sizes = sorted({*settings.get("batch_sizes", ()), *whole.get("batch_sizes", ())})
    missing = tuple((m, b) for m in wanted for b in sizes if (m, b) not in seen)
    span, median = _compile(rows)
    cells, found = _cells(rows, modes, batches), outliers(rows)
    trends = tuple(_trend(rows, m) for m in modes)
    z = Zoo(len(models), sum(_passed(rows, m) for m in models), modes, batches, families,
            cells, span, median, found, trends, _claims(rows), missing)
    ranked_32, ranked_1 = z.ranked("default", 32), z.ranked("reduce-overhead", 1)
    kernel_models = tuple(dict.fromkeys(o.model for o in z.caused(Cause.KERNELS)))
    return dataclasses.replace(
        z, ro_1=cells.get(("reduce-overhead", 1)), default_32=cells.get(("default", 32)),
        slower_models=len({o.model for o in found if o.verdict is Verdict.SLOWER}),
        ro_32=cells.get(("reduce-overhead", 32)), default_1=cells.get(("default", 1)),
        least_default_32=ranked_32[0].name if ranked_32 else None,
        families_ro_1=Span(ranked_1[0].cell("reduce-overhead", 1).geomean,
                           ranked_1[-1].cell("reduce-overhead", 1).geomean) if ranked_1 else None,
        trend_ro=z.trend("reduce-overhead"), trend_default=z.trend("default"),
        host_bound_models=tuple(dict.fromkeys(o.model for o in z.caused(Cause.HOST_BOUND))),
        kernel_models=kernel_models,
        kernels_only=kernel_models[0] if len(kernel_models) == 1 else None,
        convolutional_lost=any(o.family == "convolutional" for o in found))
