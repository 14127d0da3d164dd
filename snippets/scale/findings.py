"""What the scale page says about a run, as data: per model and strategy N GPUs against one and
what compiling bought, the faults, the learning, and how many rows each table shows."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core.rows import TIMED
from snippets.scale import shown
from snippets.scale.shown import median

STRATEGIES = ("ddp", "fsdp2")  # the strategies set against one process, in the page's order


class Scaling(str, enum.Enum):
    """N GPUs against one GPU training the same whole batch."""

    FASTER = "faster"  # their throughput is at least one GPU's
    SLOWER = "slower"  # efficiency below 1/N: the N GPUs take longer over the batch than one
    NO_REFERENCE = "no reference"  # no one-process run of the same variant to set it against


@dataclass(frozen=True)
class AgainstOne:
    """A configuration's step against the same step in one process."""

    time_ratio: float | None  # how many times as long the N GPUs take over the batch
    verdict: Scaling

    @classmethod
    def of(cls, row: dict[str, Any]) -> AgainstOne:
        eff, n = row.get("scaling_efficiency"), row["world_size"]
        if eff is None:  # eff: one process's step over N times this one's
            return cls(None, Scaling.NO_REFERENCE)
        # N GPUs' throughput is eff × N times one GPU's; their time over the batch its inverse
        return cls(1 / (eff * n) if eff else None,
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


@dataclass(frozen=True)
class FsdpCost:
    model: str
    ratio: float  # FSDP2's eager step over DDP's


@dataclass(frozen=True)
class Learning:
    steps: int  # the longest loss curve of the main rows
    tolerance_pct: float | None  # as a percentage of the reference's first loss
    mismatched: tuple[str, ...]  # "model · strategy · variant" of each row marked mismatch
    batch_norm: tuple[str, ...]  # the models that normalize with batch norm, per rank's slice


# The rows each table of the page shows, by the name of its ``tables`` function.
SHOWN = {"table": shown.main_rows, "time_split": shown.profiled_rows,
         "buckets": shown.bucket_rows, "blocks": shown.block_rows,
         "autograd": shown.autograd_rows, "nodes": shown.node_rows, "losses": shown.loss_rows}


@dataclass(frozen=True)
class Scale:
    strategies: tuple[Strategy, ...]
    fsdp_cost: tuple[FsdpCost, ...]
    configurations: int
    faults: tuple[str, ...]  # "model · strategy · variant" of each that failed or learned apart
    uncompiled: tuple[str, ...]  # "model · variant" of each compiled variant that got no graph
    learning: Learning
    shown: dict[str, int]  # how many rows each table shows (``SHOWN``)
    complete: bool  # False where the run's last command stopped before its end
    compile_paid: tuple[str, ...]  # "model · strategy" where the fastest compiled step beat eager
    compile_timed: int  # the model and strategy pairs with a compiled step to set against eager

    @property
    def compile_paid_count(self) -> int:
        return len(self.compile_paid)


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
                    best and median(eager) / median(best))


def _fsdp_cost(rows: list[dict[str, Any]], model: str) -> FsdpCost | None:
    eagers = {r["strategy"]: r for r in rows
              if (r["model"], r["variant"]) == (model, "eager") and _timed(r)}
    if "ddp" in eagers and "fsdp2" in eagers:
        return FsdpCost(model, median(eagers["fsdp2"]) / median(eagers["ddp"]))
    return None


def uncompiled(rows: list[dict[str, Any]]) -> tuple[str, ...]:
    """Of the FSDP2 table's rows, the compiled variants with no graph that the table shows beside
    an eager row: their step against eager's is the spread between two jobs of the same work."""
    eager = {r["model"] for r in rows if r["variant"] == "eager" and median(r)}
    return tuple(_label(r, "model", "variant") for r in rows if r["variant"] != "eager"
                 and r.get("graph_count") == 0 and median(r) and r["model"] in eager)


def _pct(share: float | None) -> float | None:
    return None if share is None else 100 * share


def _label(row: dict[str, Any], *parts: str) -> str:
    return shown.label(row, *(parts or ("model", "strategy", "variant")))


def of(doc: dict[str, Any]) -> Scale:
    """The findings of a scale run."""
    rows = shown.main_rows(doc)
    models = tuple(dict.fromkeys(r["model"] for r in rows))
    curves = shown.loss_rows(doc)
    strategies = tuple(s for m in models for st in STRATEGIES if (s := _strategy(rows, m, st)))
    return Scale(
        strategies=strategies,
        fsdp_cost=tuple(c for m in models if (c := _fsdp_cost(rows, m))),
        configurations=len(doc["rows"]),
        faults=tuple(_label(r) for r in doc["rows"] if r["status"] not in TIMED),
        uncompiled=uncompiled(shown.block_rows(doc)),
        learning=Learning(
            steps=max((len(r["losses"]) for r in curves), default=0),
            tolerance_pct=_pct(doc["provenance"]["settings"].get("tolerance")),
            mismatched=tuple(_label(r) for r in doc["rows"] if r["status"] == "mismatch"),
            batch_norm=tuple(sorted({r["model"] for r in curves if r.get("batch_norm")}))),
        shown={name: len(rows_of(doc)) for name, rows_of in SHOWN.items()},
        complete=bool(doc.get("complete", True)),
        compile_paid=tuple(f"{s.model} · {s.strategy}" for s in strategies
                           if s.speedup is not None and s.speedup > 1),
        compile_timed=sum(s.speedup is not None for s in strategies))


# ---- one GPU, from the training run ------------------------------------------------------------

@dataclass(frozen=True)
class OneGpu:
    rows: int  # the rows of the table (``tables.one_gpu`` sets them against each other)


def one_gpu(train: dict[str, Any]) -> OneGpu:
    """How many one-GPU steps of the training run the scale page's table shows."""
    return OneGpu(len(shown.one_gpu_rows(train)))
