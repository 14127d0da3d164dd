"""The scale page's tables, each of the rows ``shown`` picks for it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from snippets.core import columns, render
from snippets.scale import findings
from snippets.scale.shown import (
    Row,
    autograd_rows,
    block_rows,
    bucket_rows,
    label,
    loss_rows,
    main_rows,
    median,
    node_rows,
    one_gpu_rows,
    profile,
    profiled_rows,
)


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f} %"


def gap(value: float | None) -> str:
    """A loss gap as a percentage of the reference's first loss."""
    return "–" if value is None else f"{100 * value:.2g} %"


def graphs(row: Row) -> str:
    """Dynamo's graphs, and where the compilers got more pieces (DDP's split), how many."""
    count, pieces = row.get("graph_count"), row.get("compiled_graphs")
    if count is None:
        return "–"
    return f"{count}" if pieces in (None, count) else f"{count} → {pieces}"


def status(row: Row) -> str:
    return row["status"] + (f": {row['message']}" if row.get("message") else "")


def layout(row: Row) -> str:
    return f"{row['nodes']} × {row['nproc_per_node']}"


# What labels a row: the model, how it is spread over the ranks, and the variant.
KEY = (columns.field("Model", "model"), columns.field("Strategy", "strategy"),
       columns.field("Variant", "variant"))
def _number(head: str, name: str, fmt: str) -> columns.Column:
    return columns.number(head, lambda r: r.get(name), fmt)


STEP = columns.ms("Step", median)
STATUS = columns.words("Status", lambda r: r["status"])
COMPILE = _number("Compile s", "compile_s", ".1f")
EFFICIENCY = columns.Column("Efficiency", lambda r: pct(r.get("scaling_efficiency")))
GRAPHS = columns.Column("Graphs", graphs)
GAP = columns.Column("Loss gap", lambda r: gap(r.get("loss_gap")))


def detail_columns() -> tuple[columns.Column, ...]:
    """Every column of a row."""
    step = lambda r: r.get("step_ms") or {}  # noqa: E731 (one reading, two columns)
    return (
        columns.Column("Nodes × procs", layout),
        columns.Column("Batch/rank", lambda r: r["batch_size"]),
        _number("Bucket MB", "bucket_cap_mb", "g"), COMPILE,
        columns.ms("Median", lambda r: step(r).get("median")),
        columns.ms("IQR", lambda r: step(r).get("iqr")),
        _number("Samples/s", "samples_per_s", ",.0f"), EFFICIENCY,
        *(_number(head, name, "d") for head, name in (
            ("Graphs", "graph_count"), ("Compiled graphs", "compiled_graphs"),
            ("Breaks", "graph_breaks"), ("Ops", "ops_captured"),
            ("Backward graphs", "compiled_autograd_graphs"))),
        _number("Peak MB", "peak_mem_mb", ",.0f"), GAP,
        columns.Column("Gap vs eager", lambda r: gap(r.get("loss_gap_eager"))),
        columns.words("Status", status))


COLUMNS = tuple(columns.grid([], KEY, detail_columns(), joined=False)[0])


def markdown_table(rows: Iterable[Row]) -> str:
    """Every column of every row: what a terminal shows, and the page's detail block."""
    return columns.markdown(rows, KEY, detail_columns(), joined=False)


def _table(rows: list[Row], key: tuple[columns.Column, ...],
           values: tuple[columns.Column, ...]) -> str:
    """A table of ``rows``; "" for none."""
    return columns.markdown(rows, key, values) if rows else ""


def table(doc: dict[str, Any]) -> str:
    """The page's view of a run (and the Results page's): the key columns of the main rows,
    then every column of every row in a detail block."""
    key = _table(main_rows(doc), KEY, (COMPILE, STEP, EFFICIENCY, GRAPHS, GAP, STATUS))
    return (key + "\n\n" if key else "") + render.details(
        "Every column", markdown_table(doc["rows"]))


def said(doc: dict[str, Any]) -> str:
    """``findings.of``'s strategies as a table; "" for none."""
    found = findings.of(doc)
    cost = {c.model: c.ratio for c in found.fsdp_cost}
    body = [[f"{s.model} · {s.strategy}", s.eager.verdict.value,
             render.num(s.eager.time_ratio, ".2f"),
             s.fastest or "–", render.num(s.speedup, ".2f"),
             render.num(cost.get(s.model) if s.strategy == "fsdp2" else None, ".2f")]
            for s in found.strategies]
    head = ("Model · strategy", "Eager vs one GPU", "Time × one GPU", "Fastest compiled",
            "Speed × eager", "Eager × DDP")
    return render.markdown_table(head, body, align="llrlrr") if body else ""


# ---- where a step's time goes ------------------------------------------------------------------

def _nccl_share(p: dict[str, Any]) -> float | None:
    split = p.get("by_class") or {}
    total = sum(split.values())
    return split.get("comm", 0.0) / total if total else None


def time_split(doc: dict[str, Any]) -> str:
    """Rank 0's profile: the GPU's idle share and NCCL's share of kernel time."""
    return _table(profiled_rows(doc), KEY, (
        STEP, columns.Column("GPU idle", lambda r: pct(profile(r)["idle_fraction"])),
        columns.Column("NCCL of kernel time", lambda r: pct(_nccl_share(profile(r)))),
        columns.number("Kernels / step", lambda r: profile(r)["kernels_per_call"], ",.0f")))


def one_gpu(train: dict[str, Any]) -> str:
    """The training run's one-GPU steps, over the smallest batch's and over eager's."""
    found = one_gpu_rows(train)

    def vs_smallest(r: Row) -> float | None:
        first = min(b for m, v, b in found if (m, v) == (r["model"], r["variant"]))
        return (None if first == r["batch_size"]
                else median(r) / median(found[r["model"], r["variant"], first]))

    def vs_eager(r: Row) -> float | None:
        eager = found.get((r["model"], "eager", r["batch_size"]))
        return median(r) / median(eager) if r["variant"] == "model" and eager else None

    key = (columns.field("Model", "model"),
           columns.Column("Variant", lambda r: "compiled" if r["variant"] == "model"
                          else r["variant"]), columns.field("Batch", "batch_size"))
    return _table(list(found.values()), key, (
        STEP, columns.Column("GPU idle", lambda r: pct((profile(r) or {}).get("idle_fraction"))),
        # time over time, not a speedup: "÷", as the guide writes a ratio of two steps
        columns.number("÷ smallest batch", vs_smallest, ".2f"),
        columns.number("÷ eager", vs_eager, ".2f")))


# ---- tuning -----------------------------------------------------------------------------------

def buckets(doc: dict[str, Any]) -> str:
    """DDP at each bucket size: the pieces its compiled graph was split into, and the step."""
    key = (KEY[0], KEY[2], columns.Column("Bucket MB", lambda r: f"{r['bucket_cap_mb']:g}"))
    return _table(bucket_rows(doc), key, (GRAPHS, COMPILE, STEP, EFFICIENCY, STATUS))


def blocks(doc: dict[str, Any]) -> str:
    """FSDP2 compiled whole, per block before sharding, and per block in place."""
    return _table(block_rows(doc), (KEY[0], KEY[2]), (
        GRAPHS, _number("Ops in graphs", "ops_captured", "d"),
        _number("Breaks", "graph_breaks", "d"), COMPILE, STEP, STATUS))


def autograd(doc: dict[str, Any]) -> str:
    """Compiled autograd against the model compiled alone, per strategy."""
    return _table(autograd_rows(doc), KEY, (
        GRAPHS, _number("Backward graphs", "compiled_autograd_graphs", "d"),
        COMPILE, STEP, STATUS))


def nodes(doc: dict[str, Any]) -> str:
    """The several-node runs beside one-node runs of as many ranks, and the launch line."""
    multi = [r for r in doc["rows"] if r["nodes"] > 1]
    if not multi:
        return ""
    body = _table(node_rows(doc), KEY, (
        columns.Column("Nodes × procs", layout), STEP, EFFICIENCY, GAP, STATUS))
    return body + "\n\n```bash\n" + multi[0]["launch"] + "\n```"


# ---- learning the same ------------------------------------------------------------------------

def losses(doc: dict[str, Any]) -> str:
    """Each configuration's loss at a few steps, beside the one process's, and the gaps."""
    rows = loss_rows(doc)
    shown = columns.steps_shown(max((len(r["losses"]) for r in rows), default=0))
    head = ("Model · strategy · variant", *(f"Step {s}" for s in shown), "Gap to one process")
    body = [[label(r, "model", "strategy", "variant"),
             *(render.num(r["losses"][s - 1] if s <= len(r["losses"]) else None, ".4g")
               for s in shown), gap(r.get("loss_gap"))] for r in rows]
    return render.markdown_table(head, body, left_last=False) if body else ""
