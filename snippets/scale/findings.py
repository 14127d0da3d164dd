"""What the scale page says about a run, as data: per model and strategy whether two GPUs beat
one and what compiling bought, FSDP2's eager step against DDP's, the configurations that failed,
the compiled variants that got no graph and ran eagerly, whether every configuration learned the
same, and how many rows each of the page's tables shows; and, from the training page's run, how
a one-GPU step grows with the batch."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core.rows import TIMED
from snippets.scale import tables
from snippets.scale.tables import median

STRATEGIES = ("ddp", "fsdp2")  # the strategies set against one process, in the page's order


class Scaling(str, enum.Enum):
    """N GPUs against one GPU training the same whole batch."""

    FASTER = "faster"  # their throughput is at least one GPU's
    SLOWER = "slower"  # efficiency below 1/N: the N GPUs take longer over the batch than one
    NO_REFERENCE = "no reference"  # no one-process run of the same variant to set it against


@dataclass(frozen=True)
class AgainstOne:
    """A configuration's step against the same step in one process."""

    efficiency: float | None  # one process's step over N times this one's
    world: int  # N, the ranks
    throughput: float | None  # N GPUs' throughput over one GPU's: efficiency × N
    time_ratio: float | None  # how many times as long the N GPUs take over the batch: 1/throughput
    verdict: Scaling

    @classmethod
    def of(cls, row: dict[str, Any]) -> AgainstOne:
        eff, n = row.get("scaling_efficiency"), row["world_size"]
        if eff is None:
            return cls(None, n, None, None, Scaling.NO_REFERENCE)
        return cls(eff, n, eff * n, 1 / (eff * n) if eff else None,
                   Scaling.SLOWER if eff * n < 1 else Scaling.FASTER)


@dataclass(frozen=True)
class Strategy:
    """One model under one strategy: eager against one process, and the fastest compiled
    variant against eager."""

    model: str
    strategy: str
    eager: AgainstOne
    fastest: str | None  # the fastest compiled variant that ran and learned; None for none
    speedup: float | None  # eager's step over the fastest's
    efficiency: float | None  # the fastest's scaling efficiency


@dataclass(frozen=True)
class FsdpCost:
    model: str
    ratio: float  # FSDP2's eager step over DDP's


@dataclass(frozen=True)
class Fault:
    """A configuration that did not finish, or did not learn the same."""

    model: str
    strategy: str
    variant: str
    status: str
    message: str
    bucket_mb: float | None
    nodes: int
    nproc: int


@dataclass(frozen=True)
class Uncompiled:
    """A compiled variant under FSDP2 that got no graph and ran eagerly: its step against the
    eager row's is the spread between two jobs of the same work."""

    model: str
    variant: str
    step_ms: float
    eager_ms: float


@dataclass(frozen=True)
class Learning:
    steps: int  # the longest loss curve of the main rows
    tolerance: float | None  # as a share of the reference's first loss
    mismatched: tuple[str, ...]  # "model · strategy · variant" of each row marked mismatch
    batch_norm: tuple[str, ...]  # the models that normalize with batch norm, per rank's slice


@dataclass(frozen=True)
class Shown:
    """How many rows each table of the page shows, by the name of its ``tables`` function."""

    table: int
    time_split: int
    buckets: int
    blocks: int
    autograd: int
    nodes: int
    losses: int


@dataclass(frozen=True)
class Scale:
    models: tuple[str, ...]
    strategies: tuple[Strategy, ...]
    fsdp_cost: tuple[FsdpCost, ...]
    configurations: int
    faults: tuple[Fault, ...]
    uncompiled: tuple[Uncompiled, ...]
    learning: Learning
    shown: Shown


def _timed(row: dict[str, Any]) -> bool:
    return bool(median(row)) and row["status"] in TIMED


def _strategy(rows: list[dict[str, Any]], model: str, strategy: str) -> Strategy | None:
    mine = {r["variant"]: r for r in rows
            if (r["model"], r["strategy"]) == (model, strategy) and _timed(r)}
    eager = mine.pop("eager", None)
    if not eager:
        return None
    best = min(mine.values(), key=median) if mine else None
    return Strategy(model, strategy, AgainstOne.of(eager), best and best["variant"],
                    best and median(eager) / median(best),
                    best and best.get("scaling_efficiency"))


def _fsdp_cost(rows: list[dict[str, Any]], model: str) -> FsdpCost | None:
    eagers = {r["strategy"]: r for r in rows
              if (r["model"], r["variant"]) == (model, "eager") and _timed(r)}
    if "ddp" in eagers and "fsdp2" in eagers:
        return FsdpCost(model, median(eagers["fsdp2"]) / median(eagers["ddp"]))
    return None


def uncompiled(rows: list[dict[str, Any]]) -> tuple[Uncompiled, ...]:
    """Of the FSDP2 table's rows, the compiled variants with no graph, beside their eager row."""
    eager = {r["model"]: r for r in rows if r["variant"] == "eager" and median(r)}
    return tuple(Uncompiled(r["model"], r["variant"], median(r), median(eager[r["model"]]))
                 for r in rows if r["variant"] != "eager" and r.get("graph_count") == 0
                 and median(r) and r["model"] in eager)


def _label(row: dict[str, Any]) -> str:
    return tables.label(row, "model", "strategy", "variant")


def of(doc: dict[str, Any]) -> Scale:
    """The findings of a scale run."""
    rows = tables.main_rows(doc)
    models = tuple(dict.fromkeys(r["model"] for r in rows))
    curves = tables.loss_rows(doc)
    faults = tuple(Fault(r["model"], r["strategy"], r["variant"], r["status"],
                         r.get("message") or "", r.get("bucket_cap_mb"), r["nodes"],
                         r["nproc_per_node"])
                   for r in doc["rows"] if r["status"] not in TIMED)
    return Scale(
        models=models,
        strategies=tuple(s for m in models for st in STRATEGIES
                         if (s := _strategy(rows, m, st))),
        fsdp_cost=tuple(c for m in models if (c := _fsdp_cost(rows, m))),
        configurations=len(doc["rows"]),
        faults=faults,
        uncompiled=uncompiled(tables.block_rows(doc)),
        learning=Learning(
            steps=max((len(r["losses"]) for r in curves), default=0),
            tolerance=doc["provenance"]["settings"].get("tolerance"),
            mismatched=tuple(_label(r) for r in doc["rows"] if r["status"] == "mismatch"),
            batch_norm=tuple(sorted({r["model"] for r in curves if r.get("batch_norm")}))),
        shown=Shown(table=len(rows), time_split=len(tables.profiled_rows(doc)),
                    buckets=len(tables.bucket_rows(doc)), blocks=len(tables.block_rows(doc)),
                    autograd=len(tables.autograd_rows(doc)),
                    nodes=len(tables.node_rows(doc)), losses=len(curves)))


# ---- one GPU, from the training run ------------------------------------------------------------

@dataclass(frozen=True)
class Growth:
    """A one-GPU step at its largest batch against a smaller one."""

    model: str
    compiled: bool  # the compiled model (the training run's ``model``), or eager
    batch: int
    larger: int
    samples: float  # larger / batch
    time_ratio: float  # the larger batch's step over this one's


@dataclass(frozen=True)
class CompiledStep:
    model: str
    batch: int
    ratio: float  # the compiled step over eager's


@dataclass(frozen=True)
class OneGpu:
    rows: int  # the rows of the table
    growth: tuple[Growth, ...]
    compiled: tuple[CompiledStep, ...]


def one_gpu(train: dict[str, Any]) -> OneGpu:
    """How the training run's one-GPU steps grow with the batch, and the compiled step against
    eager's at each batch: where a step takes about as long at a quarter of the batch, the host
    pays for it per step, and a slice of the batch on each of two GPUs does not halve it."""
    seen = tables.one_gpu_rows(train)
    growth = []
    for (m, v, bs), r in seen.items():
        bigger = [(b, o) for (m2, v2, b), o in seen.items() if (m2, v2) == (m, v) and b > bs]
        if bigger:
            b, o = max(bigger, key=lambda bo: bo[0])
            growth.append(Growth(m, v == "model", bs, b, b / bs, median(o) / median(r)))
    compiled = tuple(CompiledStep(m, bs, median(r) / median(seen[m, "eager", bs]))
                     for (m, v, bs), r in seen.items() if v == "model" and (m, "eager", bs) in seen)
    return OneGpu(len(seen), tuple(growth), compiled)
