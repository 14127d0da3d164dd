"""The scale page's tables: the run, DDP's bucket sizes, FSDP2's ways of compiling, compiled
autograd, several nodes, and the loss against one process.

Everything here takes a results document and returns Markdown; nothing measures, and nothing
prints. Every sentence under a table is computed from the document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from snippets.core import render
from snippets.scale.gather import key
from snippets.scale.wrap import VARIANTS
from snippets.train.tables import profile_of

Row = dict[str, Any]
COLUMNS = ("Model", "Strategy", "Variant", "Nodes × procs", "Batch/rank", "Bucket MB",
           "Compile s", "Median ms", "IQR ms", "Samples/s", "Efficiency", "Graphs",
           "Compiled graphs", "Breaks", "Ops", "Backward graphs", "Peak MB", "Loss gap",
           "Gap vs eager", "Status")


def median(row: Row) -> float | None:
    return (row.get("step_ms") or {}).get("median")


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


def _table(head: tuple[str, ...], rows: list[Row], cells: Callable[[Row], list[str]],
           empty: str) -> str:
    """A table whose last column is each row's status, and under it, what went wrong where
    something did: a message is too long for a cell of a table that must fit the page."""
    if not rows:
        return empty
    text = render.markdown_table(head, (cells(r) for r in rows), left_last=True)
    return text + notes(rows)


def notes(rows: Iterable[Row]) -> str:
    said = [f"- {label(r, 'model', 'strategy', 'variant')}"
            + (f" ({r['bucket_cap_mb']:g} MB buckets)" if r.get("bucket_cap_mb") else "")
            + (f", {layout(r)}" if r["nodes"] > 1 else "") + f": {r['message']}"
            for r in rows if r["status"] not in ("ok", "noisy") and r.get("message")]
    return "\n\nWhat went wrong:\n\n" + "\n".join(said) if said else ""


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
    """The page's view of a run: the key columns, then every column of every row."""
    key = _table(KEY, main_rows(doc), key_cells, "No configuration of the main run is recorded.")
    return key + "\n\n" + render.details(
        "Every column of every configuration (spread, samples/s, memory, breaks, messages)",
        markdown_table(doc["rows"]))


def report(doc: dict[str, Any]) -> str:
    return table(doc) + "\n\nWhat the table says, computed from it:\n\n" + findings(doc)


def findings(doc: dict[str, Any]) -> str:
    """Per model and strategy, what compiling bought and how well it scaled; then the faults."""
    rows, out = main_rows(doc), []
    for model in dict.fromkeys(r["model"] for r in rows):
        for strategy in ("ddp", "fsdp2"):
            mine = {r["variant"]: r for r in rows if (r["model"], r["strategy"]) ==
                    (model, strategy) and median(r) and r["status"] in ("ok", "noisy")}
            eager = mine.pop("eager", None)
            if not eager:
                continue
            out.append(f"- {model} under {strategy}, eager: {_against_one(eager)}.")
            if not mine:
                continue
            best = min(mine.values(), key=median)
            eff = best.get("scaling_efficiency")
            out.append(f"- {model} under {strategy}: the fastest compiled variant is "
                       f"`{best['variant']}`, {median(eager) / median(best):.2f} times eager's "
                       f"speed" + (f", at {pct(eff)} scaling efficiency" if eff else "") + ".")
        eagers = {r["strategy"]: r for r in rows if (r["model"], r["variant"]) ==
                  (model, "eager") and median(r) and r["status"] in ("ok", "noisy")}
        if "ddp" in eagers and "fsdp2" in eagers:
            out.append(f"- {model}, eager: FSDP2's step takes "
                       f"{median(eagers['fsdp2']) / median(eagers['ddp']):.2f} times DDP's.")
    bad = [r for r in doc["rows"] if r["status"] not in ("ok", "noisy")]
    out.append(f"- Of {len(doc['rows'])} configurations, {len(bad)} did not finish or did not "
               "learn the same: " + (", ".join(f"{label(r, 'model', 'strategy', 'variant')} "
                                              f"({r['status']})" for r in bad) or "none") + ".")
    return "\n".join(out)


# ---- where a step's time goes ------------------------------------------------------------------

def _profile(row: Row) -> dict[str, Any] | None:
    """The training page's ``profile_of``, where the profiler saw anything at all."""
    p = profile_of(row)
    return p if p and p.get("span_us_per_call") else None


def _nccl_share(p: dict[str, Any]) -> float | None:
    split = p.get("by_class") or {}
    total = sum(split.values())
    return split.get("comm", 0.0) / total if total else None


def time_split(doc: dict[str, Any]) -> str:
    """Each configuration's profile (rank 0's, a few steps after the timed ones): how long the
    GPU sat idle, and what share of its kernel time NCCL's collectives took."""
    rows = [r for r in main_rows(doc) if _profile(r)]
    if not rows:
        return ("No profile is recorded in this run: it was made before `python -m "
                "snippets.scale` profiled each configuration's steps.")
    head = ("Model · strategy · variant", "Step ms", "GPU idle", "NCCL of kernel time",
            "Kernels / step")
    return _table(head, rows, lambda r: [
        label(r, "model", "strategy", "variant"), render.ms(median(r)),
        pct(_profile(r)["idle_fraction"]), pct(_nccl_share(_profile(r))),
        render.num(_profile(r)["kernels_per_call"], ",.0f")], "")


def one_gpu(train: dict[str, Any]) -> str:
    """The training page's one-GPU steps, eager and compiled, at each batch it measured, with
    how long the GPU sat idle in them: where a step takes about as long at a quarter of the
    batch, it is paid for by the host, per step, and a slice of the batch on each of two GPUs
    does not halve it."""
    seen: dict[tuple, Row] = {}
    for r in train["rows"]:
        k = (r["model"], r["variant"], r["batch_size"])
        if r["variant"] in ("eager", "model") and r.get("step_ms") and (
                k not in seen or (_profile(r) and not _profile(seen[k]))):
            seen[k] = r
    if not seen:
        return "No one-GPU training run is recorded."
    body = [[f"{m} · {'compiled' if v == 'model' else v} · {bs}", render.ms(median(r)),
             pct((_profile(r) or {}).get("idle_fraction"))]
            for (m, v, bs), r in sorted(seen.items())]
    text = render.markdown_table(("Model · variant · batch", "Step ms", "GPU idle"), body)
    said = []
    for (m, v, bs), r in sorted(seen.items()):
        bigger = [(b, o) for (m2, v2, b), o in seen.items() if (m2, v2) == (m, v) and b > bs]
        if not bigger:
            continue
        b, o = max(bigger, key=lambda bo: bo[0])
        said.append(f"- {m}, {'compiled' if v == 'model' else v}: batch {b} takes "
                    f"{median(o) / median(r):.2f} times as long as batch {bs}, for "
                    f"{b / bs:g} times the samples.")
    for (m, v, bs), r in sorted(seen.items()):
        eager = seen.get((m, "eager", bs))
        if v == "model" and eager:
            said.append(f"- {m} at batch {bs}: the compiled step takes "
                        f"{median(r) / median(eager):.2f} times eager's.")
    return text + ("\n\n" + "\n".join(said) if said else "")


def _against_one(row: Row) -> str:
    """A configuration's efficiency in words: below 1/N, N GPUs took longer than one."""
    eff, n = row.get("scaling_efficiency"), row["world_size"]
    if eff is None:
        return "no one-process run to set it against"
    if eff * n < 1:
        return (f"{pct(eff)} scaling efficiency: {n} GPUs take {1 / (eff * n):.2f} times as "
                "long over the batch as one GPU alone")
    return f"{pct(eff)} scaling efficiency, {eff * n:.2f} times one GPU's throughput"


# ---- tuning -----------------------------------------------------------------------------------

def _order(row: Row) -> int:
    return VARIANTS.index(row["variant"]) if row["variant"] in VARIANTS else len(VARIANTS)


def buckets(doc: dict[str, Any]) -> str:
    """DDP at each bucket size: the pieces its compiled graph was split into, and the step."""
    rows = sorted((r for r in doc["rows"] if r["strategy"] == "ddp" and r["nodes"] == 1),
                  key=lambda r: (r["model"], _order(r), r["bucket_cap_mb"] or 0))
    head = ("Model · variant · bucket MB", "Graphs", "Compile s", "Step ms", "Efficiency",
            "Status")
    return _table(head, rows, lambda r: [
        f"{label(r, 'model', 'variant')} · {r['bucket_cap_mb']:g}", graphs(r),
        render.num(r.get("compile_s"), ".1f"), render.ms(median(r)),
        pct(r.get("scaling_efficiency")), r["status"]], "No DDP run is recorded.")


def blocks(doc: dict[str, Any]) -> str:
    """FSDP2 compiled whole, per block before sharding, and per block in place."""
    rows = sorted((r for r in doc["rows"] if r["strategy"] == "fsdp2" and r["nodes"] == 1
                   and r["variant"] != "compiled-autograd"), key=lambda r: (r["model"], _order(r)))
    head = ("Model · variant", "Graphs", "Ops in graphs", "Breaks", "Compile s", "Step ms",
            "Status")
    text = _table(head, rows, lambda r: [
        label(r, "model", "variant"), graphs(r), render.num(r.get("ops_captured"), "d"),
        render.num(r.get("graph_breaks"), "d"), render.num(r.get("compile_s"), ".1f"),
        render.ms(median(r)), r["status"]], "No FSDP2 run is recorded.")
    return text + _uncompiled(rows)


def _uncompiled(rows: list[Row]) -> str:
    """A compiled variant that got no graph ran eagerly: its step against the eager row's is
    the spread between two jobs doing the same work, which says how far apart two rows of the
    table must be to differ."""
    eager = {r["model"]: r for r in rows if r["variant"] == "eager" and median(r)}
    said = [f"- {label(r, 'model', 'variant')} compiled nothing (no graph) and ran eagerly: "
            f"its step, {render.ms(median(r))} ms, against eager's "
            f"{render.ms(median(eager[r['model']]))} ms is the spread between two jobs of the "
            "same work." for r in rows if r["variant"] != "eager" and r.get("graph_count") == 0
            and median(r) and r["model"] in eager]
    return "\n\n" + "\n".join(said) if said else ""


def autograd(doc: dict[str, Any]) -> str:
    """Compiled autograd against the model compiled alone, per strategy."""
    cap = main_bucket(doc)
    pairs = {(r["model"], r["strategy"]) for r in doc["rows"]
             if r["variant"] == "compiled-autograd"}
    rows = [r for r in doc["rows"] if (r["model"], r["strategy"]) in pairs and r["nodes"] == 1
            and r["variant"] in ("compiled", "compiled-autograd")
            and r["bucket_cap_mb"] in (None, cap)]
    head = ("Model · strategy · variant", "Graphs", "Backward graphs", "Compile s", "Step ms",
            "Status")
    return _table(head, rows, lambda r: [
        label(r, "model", "strategy", "variant"), graphs(r),
        render.num(r.get("compiled_autograd_graphs"), "d"),
        render.num(r.get("compile_s"), ".1f"), render.ms(median(r)), r["status"]],
        "No compiled-autograd run is recorded.")


def nodes(doc: dict[str, Any]) -> str:
    """The several-node runs beside the one-node runs of as many ranks."""
    multi = [r for r in doc["rows"] if r["nodes"] > 1]
    if not multi:
        return "No run over several nodes is recorded."
    worlds = {(r["model"], r["strategy"], r["variant"], r["world_size"]) for r in multi}
    cap = main_bucket(doc)
    rows = [r for r in doc["rows"] if (r["model"], r["strategy"], r["variant"],
                                       r["world_size"]) in worlds
            and r["bucket_cap_mb"] in (None, cap, *(m["bucket_cap_mb"] for m in multi))]
    rows.sort(key=lambda r: (r["model"], r["strategy"], r["variant"], r["nodes"]))
    head = ("Model · strategy · variant", "Nodes × procs", "Step ms", "Efficiency",
            "Loss gap", "Status")
    body = _table(head, rows, lambda r: [
        label(r, "model", "strategy", "variant"), layout(r), render.ms(median(r)),
        pct(r.get("scaling_efficiency")), gap(r.get("loss_gap")), r["status"]], "")
    return (body + "\n\nThe first node's command line, as the run started it:\n\n```bash\n"
            + multi[0]["launch"] + "\n```")


# ---- learning the same ------------------------------------------------------------------------

def _steps_shown(n: int) -> list[int]:
    return sorted({1, *(max(1, round(n * q)) for q in (0.25, 0.5)), n}) if n else []


def losses(doc: dict[str, Any]) -> str:
    """Each configuration's loss at a few steps, beside the one process's, and the gaps."""
    rows = [r for r in main_rows(doc) if r.get("losses")]
    n = max((len(r["losses"]) for r in rows), default=0)
    shown = _steps_shown(n)
    head = ("Model · strategy · variant", *(f"Step {s}" for s in shown), "Gap to one process")
    body = [[label(r, "model", "strategy", "variant"),
             *(render.num(r["losses"][s - 1] if s <= len(r["losses"]) else None, ".4g")
               for s in shown), gap(r.get("loss_gap"))] for r in rows]
    if not body:
        return "No loss curve is recorded."
    tol = doc["provenance"]["settings"].get("tolerance")
    wrong = [label(r, "model", "strategy", "variant") for r in doc["rows"]
             if r["status"] == "mismatch"]
    norm = sorted({r["model"] for r in rows if r.get("batch_norm")})
    verdict = (f"every configuration learns as it should (within {100 * tol:g} % of the first "
               "loss)" if not wrong else ", ".join(wrong) + " do not learn the same")
    text = f"\n\nOver {n} steps from the same weights, {verdict}."
    if norm:
        text += (f" {', '.join(norm)} normalizes with batch norm, over each rank's slice of the "
                 "batch, not the whole batch the one process sees: its gap to one process is "
                 "real and expected, and its compiled variants are held to their own strategy's "
                 "eager run instead.")
    return render.markdown_table(head, body, left_last=False) + text


# ---- a run beside a recorded one (--compare) ---------------------------------------------------

def compare(doc: dict[str, Any], recorded: dict[str, Any]) -> str:
    """The step time of each configuration in both runs, and the settings that differ."""
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
    differ = [f"{k}: {mine['settings'].get(k)!r} here, {other['settings'].get(k)!r} there"
              for k in ("dtype", "batch_size", "steps", "rounds", "backend", "devices")
              if mine["settings"].get(k) != other["settings"].get(k)]
    if mine.get("device") != other.get("device"):
        differ.insert(0, f"device: {mine.get('device')} here, {other.get('device')} there")
    head = ("Configuration", "Step ms here", "Step ms recorded", "Recorded / here")
    text = render.markdown_table(head, body) if body else "No configuration is in both runs."
    return text + "\n\n" + ("Settings that differ: " + "; ".join(differ) if differ
                            else "Same settings.")
