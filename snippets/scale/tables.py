"""The scale page's tables: the run, where a step's time goes, the one-GPU steps of the training
run, DDP's bucket sizes, FSDP2's ways of compiling, compiled autograd, several nodes, the loss
against one process, and a run beside a recorded one (``--compare``).

Everything here takes a results document and returns a Markdown table (or ``""`` where it has no
row); nothing measures, nothing prints, and no sentence is composed here: what the tables say is
in ``snippets.scale.findings``, and the words around it are the page's. The ``*_rows`` functions
pick each table's rows; the findings count and read the same rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from snippets.core import render
from snippets.core import rows as core_rows
from snippets.scale.gather import key
from snippets.scale.wrap import VARIANTS
from snippets.train.tables import profile_of

Row = dict[str, Any]
COLUMNS = ("Model", "Strategy", "Variant", "Nodes × procs", "Batch/rank", "Bucket MB",
           "Compile s", "Median ms", "IQR ms", "Samples/s", "Efficiency", "Graphs",
           "Compiled graphs", "Breaks", "Ops", "Backward graphs", "Peak MB", "Loss gap",
           "Gap vs eager", "Status")


def median(row: Row | None) -> float | None:
    """A row's median step time (ms)."""
    return core_rows.median(row, "step_ms")


def label(row: Row, *parts: str) -> str:
    return " · ".join(str(row[p]) for p in parts)


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f} %"


def gap(value: float | None) -> str:
    """A loss gap as a percentage of the reference's first loss."""
    if value is None:
        return "–"
    return f"{100 * value:.2g} %"


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


def cells(row: Row) -> list[str]:
    num, step = render.num, row.get("step_ms") or {}
    return [row["model"], row["strategy"], row["variant"], layout(row), str(row["batch_size"]),
            num(row.get("bucket_cap_mb"), "g"), num(row.get("compile_s"), ".1f"),
            render.ms(step.get("median")), render.ms(step.get("iqr")),
            num(row.get("samples_per_s"), ",.0f"), pct(row.get("scaling_efficiency")),
            num(row.get("graph_count"), "d"), num(row.get("compiled_graphs"), "d"),
            num(row.get("graph_breaks"), "d"), num(row.get("ops_captured"), "d"),
            num(row.get("compiled_autograd_graphs"), "d"), num(row.get("peak_mem_mb"), ",.0f"),
            gap(row.get("loss_gap")), gap(row.get("loss_gap_eager")), status(row)]


def markdown_table(rows: Iterable[Row]) -> str:
    """Every column of every row: what a terminal shows, and the page's detail block."""
    return render.markdown_table(COLUMNS, (cells(r) for r in rows), left=3, left_last=True)


def _table(head: tuple[str, ...], rows: list[Row], cells: Callable[[Row], list[str]]) -> str:
    """A table whose last column is each row's status (a failed row's message is in the detail
    block: too long for a cell of a table that must fit the page); "" for no rows."""
    return render.markdown_table(head, (cells(r) for r in rows), left_last=True) if rows else ""


def main_bucket(doc: dict[str, Any]) -> float | None:
    """The bucket size of the run's first command: the one the main table shows."""
    caps = doc["provenance"]["settings"].get("bucket_caps") or [None]
    return caps[0]


def main_rows(doc: dict[str, Any]) -> list[Row]:
    """One node, the main bucket size, and not the tuning variants."""
    cap = main_bucket(doc)
    return [r for r in doc["rows"] if r["nodes"] == 1 and r["bucket_cap_mb"] in (None, cap)
            and r["variant"] in ("eager", "compiled", "per-block")]


KEY = ("Model · strategy · variant", "Compile s", "Step ms", "Efficiency", "Graphs",
       "Loss gap", "Status")


def key_cells(row: Row) -> list[str]:
    return [label(row, "model", "strategy", "variant"), render.num(row.get("compile_s"), ".1f"),
            render.ms(median(row)), pct(row.get("scaling_efficiency")), graphs(row),
            gap(row.get("loss_gap")), row["status"]]


def table(doc: dict[str, Any]) -> str:
    """The page's view of a run (and the Results page's): the key columns of the main rows,
    then every column of every row in a detail block."""
    key = _table(KEY, main_rows(doc), key_cells)
    return (key + "\n\n" if key else "") + render.details(
        "Every column of every configuration (spread, samples/s, memory, breaks, messages)",
        markdown_table(doc["rows"]))


# ---- where a step's time goes ------------------------------------------------------------------

def profile(row: Row) -> dict[str, Any] | None:
    """The training page's ``profile_of``, where the profiler saw anything at all."""
    p = profile_of(row)
    return p if p and p.get("span_us_per_call") else None


def _nccl_share(p: dict[str, Any]) -> float | None:
    split = p.get("by_class") or {}
    total = sum(split.values())
    return split.get("comm", 0.0) / total if total else None


def profiled_rows(doc: dict[str, Any]) -> list[Row]:
    return [r for r in main_rows(doc) if profile(r)]


def time_split(doc: dict[str, Any]) -> str:
    """Each configuration's profile (rank 0's, a few steps after the timed ones): how long the
    GPU sat idle, and what share of its kernel time NCCL's collectives took."""
    head = ("Model · strategy · variant", "Step ms", "GPU idle", "NCCL of kernel time",
            "Kernels / step")
    return _table(head, profiled_rows(doc), lambda r: [
        label(r, "model", "strategy", "variant"), render.ms(median(r)),
        pct(profile(r)["idle_fraction"]), pct(_nccl_share(profile(r))),
        render.num(profile(r)["kernels_per_call"], ",.0f")])


def one_gpu_rows(train: dict[str, Any]) -> dict[tuple[str, str, int], Row]:
    """The training run's compiled (``model``) step per model and batch, and the eager step its
    command timed beside it (a file filled by several commands holds an eager row of each; the
    compiled step is read against its own, as the training page reads it)."""
    seen: dict[tuple[str, str, int], Row] = {}
    timed = [r for r in train["rows"] if r.get("step_ms")]
    for r in timed:
        k = (r["model"], r["variant"], r["batch_size"])
        if r["variant"] == "model" and k not in seen:
            seen[k] = r
            own = core_rows.own_baseline(timed, r, lambda e: e["variant"] == "eager")
            if own is not None:
                seen[(r["model"], "eager", r["batch_size"])] = own
    paired = set(seen)
    for r in timed:  # a batch with no compiled step: its eager step, the one with a profile
        k = (r["model"], "eager", r["batch_size"])
        if r["variant"] == "eager" and k not in paired and (
                k not in seen or (profile(r) and not profile(seen[k]))):
            seen[k] = r
    return dict(sorted(seen.items()))


def one_gpu(train: dict[str, Any]) -> str:
    """The training page's one-GPU steps, eager and compiled, at each batch it measured, with
    how long the GPU sat idle in them."""
    body = [[f"{m} · {'compiled' if v == 'model' else v} · {bs}", render.ms(median(r)),
             pct((profile(r) or {}).get("idle_fraction"))]
            for (m, v, bs), r in one_gpu_rows(train).items()]
    head = ("Model · variant · batch", "Step ms", "GPU idle")
    return render.markdown_table(head, body) if body else ""


# ---- tuning -----------------------------------------------------------------------------------

def _order(row: Row) -> int:
    return VARIANTS.index(row["variant"]) if row["variant"] in VARIANTS else len(VARIANTS)


def bucket_rows(doc: dict[str, Any]) -> list[Row]:
    return sorted((r for r in doc["rows"] if r["strategy"] == "ddp" and r["nodes"] == 1),
                  key=lambda r: (r["model"], _order(r), r["bucket_cap_mb"] or 0))


def buckets(doc: dict[str, Any]) -> str:
    """DDP at each bucket size: the pieces its compiled graph was split into, and the step."""
    head = ("Model · variant · bucket MB", "Graphs", "Compile s", "Step ms", "Efficiency",
            "Status")
    return _table(head, bucket_rows(doc), lambda r: [
        f"{label(r, 'model', 'variant')} · {r['bucket_cap_mb']:g}", graphs(r),
        render.num(r.get("compile_s"), ".1f"), render.ms(median(r)),
        pct(r.get("scaling_efficiency")), r["status"]])


def block_rows(doc: dict[str, Any]) -> list[Row]:
    return sorted((r for r in doc["rows"] if r["strategy"] == "fsdp2" and r["nodes"] == 1
                   and r["variant"] != "compiled-autograd"), key=lambda r: (r["model"], _order(r)))


def blocks(doc: dict[str, Any]) -> str:
    """FSDP2 compiled whole, per block before sharding, and per block in place."""
    head = ("Model · variant", "Graphs", "Ops in graphs", "Breaks", "Compile s", "Step ms",
            "Status")
    return _table(head, block_rows(doc), lambda r: [
        label(r, "model", "variant"), graphs(r), render.num(r.get("ops_captured"), "d"),
        render.num(r.get("graph_breaks"), "d"), render.num(r.get("compile_s"), ".1f"),
        render.ms(median(r)), r["status"]])


def autograd_rows(doc: dict[str, Any]) -> list[Row]:
    """Compiled autograd and the model compiled alone, of each model and strategy that has it."""
    cap = main_bucket(doc)
    pairs = {(r["model"], r["strategy"]) for r in doc["rows"]
             if r["variant"] == "compiled-autograd"}
    return [r for r in doc["rows"] if (r["model"], r["strategy"]) in pairs and r["nodes"] == 1
            and r["variant"] in ("compiled", "compiled-autograd")
            and r["bucket_cap_mb"] in (None, cap)]


def autograd(doc: dict[str, Any]) -> str:
    """Compiled autograd against the model compiled alone, per strategy."""
    head = ("Model · strategy · variant", "Graphs", "Backward graphs", "Compile s", "Step ms",
            "Status")
    return _table(head, autograd_rows(doc), lambda r: [
        label(r, "model", "strategy", "variant"), graphs(r),
        render.num(r.get("compiled_autograd_graphs"), "d"),
        render.num(r.get("compile_s"), ".1f"), render.ms(median(r)), r["status"]])


def node_rows(doc: dict[str, Any]) -> list[Row]:
    """The several-node rows and the one-node rows of as many ranks."""
    multi = [r for r in doc["rows"] if r["nodes"] > 1]
    worlds = {(r["model"], r["strategy"], r["variant"], r["world_size"]) for r in multi}
    caps = (None, main_bucket(doc), *(m["bucket_cap_mb"] for m in multi))
    rows = [r for r in doc["rows"] if (r["model"], r["strategy"], r["variant"],
                                       r["world_size"]) in worlds and r["bucket_cap_mb"] in caps]
    return sorted(rows, key=lambda r: (r["model"], r["strategy"], r["variant"], r["nodes"]))


def nodes(doc: dict[str, Any]) -> str:
    """The several-node runs beside the one-node runs of as many ranks, and the first node's
    command line as the run started it."""
    multi = [r for r in doc["rows"] if r["nodes"] > 1]
    if not multi:
        return ""
    head = ("Model · strategy · variant", "Nodes × procs", "Step ms", "Efficiency",
            "Loss gap", "Status")
    body = _table(head, node_rows(doc), lambda r: [
        label(r, "model", "strategy", "variant"), layout(r), render.ms(median(r)),
        pct(r.get("scaling_efficiency")), gap(r.get("loss_gap")), r["status"]])
    return body + "\n\n```bash\n" + multi[0]["launch"] + "\n```"


# ---- learning the same ------------------------------------------------------------------------

def _steps_shown(n: int) -> list[int]:
    return sorted({1, *(max(1, round(n * q)) for q in (0.25, 0.5)), n}) if n else []


def loss_rows(doc: dict[str, Any]) -> list[Row]:
    return [r for r in main_rows(doc) if r.get("losses")]


def losses(doc: dict[str, Any]) -> str:
    """Each configuration's loss at a few steps, beside the one process's, and the gaps."""
    rows = loss_rows(doc)
    shown = _steps_shown(max((len(r["losses"]) for r in rows), default=0))
    head = ("Model · strategy · variant", *(f"Step {s}" for s in shown), "Gap to one process")
    body = [[label(r, "model", "strategy", "variant"),
             *(render.num(r["losses"][s - 1] if s <= len(r["losses"]) else None, ".4g")
               for s in shown), gap(r.get("loss_gap"))] for r in rows]
    return render.markdown_table(head, body, left_last=False) if body else ""


# ---- a run beside a recorded one (--compare) ---------------------------------------------------

COMPARED = ("dtype", "batch_size", "steps", "rounds", "backend", "devices")


def compare(doc: dict[str, Any], recorded: dict[str, Any]) -> str:
    """The step time of each configuration in both runs; under it, the settings that differ
    (the device first), each here and there."""
    theirs = {key(r): r for r in recorded["rows"]}
    body = []
    for r in doc["rows"]:
        other = theirs.get(key(r))
        if other is None:
            continue
        a, b = median(r), median(other)
        body.append([f"{label(r, 'model', 'strategy', 'variant')} · {layout(r)}",
                     render.ms(a), render.ms(b), f"{b / a:.2f}x" if a and b else "–"])
    mine, other = doc["provenance"], recorded["provenance"]
    differ = [[k, repr(mine["settings"].get(k)), repr(other["settings"].get(k))]
              for k in COMPARED if mine["settings"].get(k) != other["settings"].get(k)]
    if mine.get("device") != other.get("device"):
        differ.insert(0, ["device", str(mine.get("device")), str(other.get("device"))])
    head = ("Configuration", "Step ms here", "Step ms recorded", "Recorded / here")
    text = render.markdown_table(head, body)
    if differ:
        text += "\n\n" + render.markdown_table(("Setting", "Here", "Recorded"), differ,
                                               align="lll")
    return text
