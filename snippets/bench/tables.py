"""The benchmark's tables: Markdown for the site, rich tables for a terminal, a run against a
recorded one, and the findings the page states under its table.

Everything here takes a results document (or its rows) and returns text or a rich renderable;
nothing measures, and nothing prints.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

from snippets import bench
from snippets.bench import findings
from snippets.core import compare, render, results, rows
from snippets.core.results import stamp

COLUMNS = ("Model", "Batch", "Mode", "Compile s", "Median ms", "IQR ms", "Speedup", "rel err",
           "Call peak MB", "TFLOP/s", "% peak", "Graphs", "Breaks", "Status")
Key = tuple[str, int, str]


def row_cells(row: dict[str, Any], tag: str = "", paired: bool = True,
              prov: dict[str, Any] | None = None) -> list[str]:
    """Every column of one row; with ``prov``, its % of peak against the file's printed peak."""
    lat = row.get("latency_ms") or {}
    speed = render.speedup(row, paired)
    status = row["status"] + (f": {row['message']}" if row.get("message") else "")
    num = render.num
    peak = num(row.get("peak_mem_mb"), ".0f")
    if row["mode"] in findings.CUDA_GRAPH_MODES and row.get("peak_mem_mb") is not None:
        peak += " (no pool)"  # the graph's pool is taken at capture, not by the call
    return [
        row["model"], str(row["batch_size"]), " · ".join(x for x in (tag, row["mode"]) if x),
        num(row.get("compile_s"), ".1f"),
        render.ms(lat.get("median")), render.ms(lat.get("iqr")), speed,
        num(row.get("rel_err"), ".1e"), peak,
        num(row.get("tflops"), ".3g"),
        num(rows.pct_of_peak(row, prov) if prov else row.get("pct_of_peak"), ".1f"),
        num(row.get("graph_count"), "d"), num(row.get("graph_breaks"), "d"), status,
    ]


def markdown_table(found: list[dict[str, Any]], prov: dict[str, Any] | None = None) -> str:
    """Every column of every row: what a terminal shows, and the page's detail block."""
    return render.markdown_table(COLUMNS, (row_cells(p.row, p.tag, p.paired, prov)
                                           for p in placed(found)), left=3, left_last=True)


def placed(found: list[dict[str, Any]]) -> list[rows.InRun]:
    """The rows in blocks, one per run of each group (a ladder file that several commands filled
    holds several), each opened by the eager row its speedups are against."""
    return rows.in_runs(found, lambda r: r["mode"] == "eager")


def key_columns(doc: dict[str, Any]) -> tuple[str, ...]:
    """The columns a reader came for; the compile column says whether the cache was warm."""
    cache = bench.cache_state(doc["provenance"].get("settings", {}))
    compile_col = {"empty": "Compile s, empty cache", "not empty": "Compile s, cache not empty",
                   "not recorded": "Compile s, cache unknown"}[cache]
    return ("Model · batch · mode", "Median ms", "Speedup", "IQR %", compile_col, "Status")


def key_cells(row: dict[str, Any], tag: str = "", paired: bool = True) -> list[str]:
    lat = row.get("latency_ms") or {}
    spread = f"{100 * lat['iqr'] / lat['median']:.1f}" if lat.get("median") else "–"
    label = " · ".join(x for x in (row["model"], str(row["batch_size"]), tag, row["mode"]) if x)
    return [label, render.ms(lat.get("median")), render.speedup(row, paired), spread,
            render.num(row.get("compile_s"), ".1f"), row["status"]]


def table(doc: dict[str, Any]) -> str:
    """The page's view of a run: the key columns, then every column in a block that opens."""
    key = render.markdown_table(key_columns(doc), (key_cells(p.row, p.tag, p.paired)
                                                   for p in placed(doc["rows"])), left_last=True)
    return key + "\n\n" + render.details("Every column of this run (IQR ms, rel err, memory, "
                                          "TFLOP/s, % of peak, graphs, breaks, status)",
                                          markdown_table(doc["rows"], doc["provenance"]))


def fastest(f: findings.Findings) -> str:
    """The fastest mode of each (model, batch) of a run and its speed over eager's in the same
    run, from the run's findings."""
    return render.markdown_table(("Model · batch", "Fastest", "× eager"), [
        (f"{x.model} · {x.batch}", f"`{x.mode}`", render.num(x.speedup, ".2f"))
        for x in f.fastest])


def rich_table(doc: dict[str, Any], title: str | None = None) -> Table:
    table = Table(title=title, caption=stamp(doc, "this run"), caption_justify="left")
    for i, col in enumerate(COLUMNS):
        table.add_column(col, justify="left" if i < 3 or i == len(COLUMNS) - 1 else "right")
    for p in placed(doc["rows"]):
        status = p.row["status"]
        style = None if status == "ok" else ("red" if status != "noisy" else "yellow")
        table.add_row(*row_cells(p.row, p.tag, p.paired, doc["provenance"]), style=style)
    return table


# ---- this run against a recorded one --------------------------------------------------------

# The settings that change what a latency means: a ratio across any of them (or across device
# types) is not like for like.
COMPARED_SETTINGS = ("dtype", "channels_last", "tf32", "cudnn_benchmark")


def bound_by(doc: dict[str, Any]) -> dict[Key, str]:
    """What each row's latency waits on, read from the run itself. On a CPU the host does all
    the work ("host (CPU run)"). On a GPU a CUDA-graph replay waits on the GPU; eager and the
    default mode wait on the host where eager hardly grows with the batch (``findings.growth``),
    else on the GPU; "–" where the run has one batch size and cannot tell."""
    cpu = results.device_type_of(doc) == "cpu"
    out = {}
    for key in _by_key(doc):
        growth = findings.growth(doc, key[0])
        if cpu:
            out[key] = "host (CPU run)"
        elif key[2] in findings.CUDA_GRAPH_MODES:
            out[key] = "GPU (replay)"
        elif growth is None:
            out[key] = "–"
        else:
            out[key] = "GPU" if growth.bound is findings.Bound.DEVICE else "host"
    return out


def ratios(doc: dict[str, Any], other: dict[str, Any]) -> list[tuple[str, float]]:
    """(what the row waits on, this run's median over the recorded one's) for each row that both
    runs timed."""
    recorded = _by_key(other)
    bound = {**bound_by(doc), **bound_by(other)}
    out = []
    for row in doc["rows"]:
        key = (row["model"], row["batch_size"], row["mode"])
        now_ms, old_ms = rows.median(row), rows.median(recorded.get(key))
        if now_ms and old_ms:
            out.append((bound.get(key, "–"), now_ms / old_ms))
    return out


def compare_rows(doc: dict[str, Any], other: dict[str, Any]) -> list[list[str]]:
    """This run beside a recorded one, matched on (model, batch size, mode), with what each
    row waits on (from the recorded run, which has the batch sizes to tell, else this one)."""
    recorded = _by_key(other)
    bound = {**bound_by(doc), **bound_by(other)}
    out = []
    for row in doc["rows"]:
        key = (row["model"], row["batch_size"], row["mode"])
        old = recorded.get(key)
        now_ms, old_ms = rows.median(row), rows.median(old)
        ratio = f"{now_ms / old_ms:.2f}" if now_ms and old_ms else "–"
        out.append([*map(str, key), render.ms(now_ms), render.ms(old_ms), ratio,
                    render.num(row.get("speedup"), ".2f"),
                    render.num((old or {}).get("speedup"), ".2f"), bound.get(key, "–")])
    return out


COMPARE_COLUMNS = ("Model", "Batch", "Mode", "This ms", "Recorded ms", "This/recorded",
                   "This speedup", "Recorded speedup", "Bound by")


def setting_differences(doc: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """What makes a recorded bench run unlike this one: its settings, or the device's type."""
    return compare.setting_differences(doc, other, COMPARED_SETTINGS, device_by="device_type")


def compare_title(doc: dict[str, Any], other: dict[str, Any]) -> str:
    return compare.title(doc, other, COMPARED_SETTINGS, device_by="device_type")


def compare_page(doc: dict[str, Any], other: dict[str, Any]) -> str:
    """The comparison as a page shows it: the row label in one column and the two latencies in
    a block that opens, so the ratios and the bound fit a desktop page without scrolling."""
    cells_of = compare_rows(doc, other)
    head = ("Model · batch · mode", *COMPARE_COLUMNS[5:])
    body = ([" · ".join(cells[:3]), *cells[5:]] for cells in cells_of)
    latencies = render.markdown_table(("Model · batch · mode", *COMPARE_COLUMNS[3:5]),
                                      ([" · ".join(cells[:3]), *cells[3:5]] for cells in cells_of))
    spans: dict[str, list[float]] = {}
    for bound, ratio in ratios(doc, other):  # the ratio's range per kind of bound
        spans.setdefault(bound, []).append(ratio)
    summary = "\n".join(f"- bound by {bound}: this/recorded from {min(v):.2f} to {max(v):.2f}"
                        for bound, v in spans.items())
    return (f"{compare_title(doc, other)}:\n\n"
            + render.markdown_table(head, body, left_last=True) + "\n\n"
            + render.details("The median latencies behind the ratio (This ms, Recorded ms)",
                             latencies) + "\n\n" + summary)


def compare_markdown(doc: dict[str, Any], other: dict[str, Any]) -> str:
    return compare.markdown(compare_title(doc, other), doc, other, COMPARE_COLUMNS,
                            compare_rows(doc, other), left_last=True)


def compare_table(doc: dict[str, Any], other: dict[str, Any]) -> Table:
    return compare.rich_table(compare_title(doc, other), doc, other, COMPARE_COLUMNS,
                              compare_rows(doc, other), left_last=True)


def _by_key(doc: dict[str, Any]) -> dict[Key, dict[str, Any]]:
    return {(r["model"], r["batch_size"], r["mode"]): r for r in doc["rows"]}
