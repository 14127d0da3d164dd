"""A zoo run's compiled rows that did not pay (slower, within noise or failed), each with the
cause its row holds evidence of."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core import findings as core
from snippets.core import rows as typed
from snippets.core.findings import Verdict

CUDA_GRAPH_MODES = ("reduce-overhead", "max-autotune")
# A CUDA-graph mode that gains this many times the default mode's speedup on the same model and
# batch says the default's time went to launching kernels, not to running them.
HOST_BOUND_RATIO = 1.5


class Cause(str, enum.Enum):
    """What a compiled row that did not pay holds as evidence of why."""

    FAILS = "fails"  # it did not compile, answered wrongly or ran out of memory
    BREAKS = "graph breaks"  # Dynamo split the forward
    RECOMPILES = "recompiles"  # a repeated call compiled again
    NO_CUDA_GRAPHS = "CUDA graphs skipped"  # a CUDA-graph mode that ran without them
    HOST_BOUND = "host-bound"  # the CUDA-graph mode gained where this one did not
    KERNELS = "kernels"  # one graph, no recompile: the time is in the kernels themselves


@dataclass(frozen=True)
class Outlier:
    """A compiled row that is slower than eager, or within noise of it, or that failed."""

    model: str
    family: str
    batch: int
    mode: str
    cause: Cause
    speedup: float | None
    verdict: Verdict | None  # None where the row failed
    status: str
    message: str
    graph_breaks: int | None
    recompiles: int | None
    cudagraph_skips: int | None
    cuda_graph_speedup: float | None  # the same model and batch in a CUDA-graph mode


def timed(r: dict[str, Any]) -> bool:
    """A compiled row that answered as eager did and holds a speedup: what every cell counts."""
    return r["status"] in typed.TIMED and r.get("speedup") is not None


def _cause(r: dict[str, Any], graphs: dict[tuple[str, int], float]) -> Cause:
    if not timed(r):
        return Cause.FAILS
    if r.get("graph_breaks"):
        return Cause.BREAKS
    if r.get("recompiles"):
        return Cause.RECOMPILES
    if r["mode"] in CUDA_GRAPH_MODES and r.get("cudagraph_skips"):
        return Cause.NO_CUDA_GRAPHS
    other = graphs.get((r["model"], r["batch_size"]))
    if r["mode"] not in CUDA_GRAPH_MODES and other and other > HOST_BOUND_RATIO * r["speedup"]:
        return Cause.HOST_BOUND
    return Cause.KERNELS


def outliers(rows: list[dict[str, Any]]) -> tuple[Outlier, ...]:
    graphs = {(r["model"], r["batch_size"]): r["speedup"] for r in rows
              if r["mode"] in CUDA_GRAPH_MODES and timed(r)}
    out = []
    for r in rows:
        if r["mode"] == "eager":
            continue
        verdict = core.verdict(r["speedup"], r.get("speedup_iqr") or 0.0) if timed(r) else None
        if verdict is Verdict.PAYS:
            continue
        out.append(Outlier(r["model"], r.get("family", ""), r["batch_size"], r["mode"],
                           _cause(r, graphs), r.get("speedup"), verdict, r["status"],
                           r["message"], r.get("graph_breaks"), r.get("recompiles"),
                           r.get("cudagraph_skips"), graphs.get((r["model"], r["batch_size"]))))
    return tuple(out)
