"""The benchmark's tables: Markdown for the site, rich for a terminal, a run against a recorded
one, and the readings the page states under its table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.table import Table

from snippets import bench
from snippets.bench import findings
from snippets.bench.stability import Key, by_key
from snippets.core import columns, compare, render, results, rows
from snippets.core.stamps import stamp

# What labels a row: the model, the batch, the mode (after its command, where its group holds
# several).
KEY = (columns.field("Model", "model"), columns.field("Batch", "batch_size"),
       columns.variant("Mode", "mode"))


def _peak(row: dict[str, Any]) -> str | None:
    if row.get("peak_mem_mb") is None:
        return None
    # The graph's pool is taken at capture, not by the call.
    return f"{row['peak_mem_mb']:.0f}" + (" (no pool)" if row["mode"] in findings.CUDA_GRAPH_MODES
                                         else "")


def _status(row: dict[str, Any]) -> str:
    return row["status"] + (f": {row['message']}" if row.get("message") else "")


def detail_columns(prov: dict[str, Any] | None = None) -> tuple[columns.Column, ...]:
    """Every column of a row; with ``prov``, its % of peak against the file's printed peak."""
    lat = lambda p: p.row.get("latency_ms") or {}  # noqa: E731 (one reading, five columns)
    return (
        columns.number("Compile s", lambda p: p.row.get("compile_s"), ".1f"),
        columns.ms("Median", lambda p: lat(p).get("median")),
        columns.ms("IQR", lambda p: lat(p).get("iqr")),
        columns.speedup(),
        columns.number("rel err", lambda p: p.row.get("rel_err"), ".1e"),
        columns.Column("Call peak MB", lambda p: _peak(p.row)),
        columns.number("TFLOP/s", lambda p: p.row.get("tflops"), ".3g"),
        columns.number("% peak", lambda p: rows.pct_of_peak(p.row, prov) if prov
                     else p.row.get("pct_of_peak"), ".1f"),
        columns.number("Graphs", lambda p: p.row.get("graph_count"), "d"),
        columns.number("Breaks", lambda p: p.row.get("graph_breaks"), "d"),
        columns.words("Status", lambda p: _status(p.row)))


def markdown_table(found: list[dict[str, Any]], prov: dict[str, Any] | None = None) -> str:
    """Every column of every row: what a terminal shows, and the page's detail block."""
    return columns.markdown(placed(found), KEY, detail_columns(prov), joined=False)


def placed(found: list[dict[str, Any]]) -> list[rows.InRun]:
    """The rows in blocks, one per run of each group, each opened by its eager row."""
    return rows.in_runs(found, lambda r: r["mode"] == "eager")


def key_values(doc: dict[str, Any]) -> tuple[columns.Column, ...]:
    """The columns a reader came for; the compile column says whether the cache was warm."""
    cache = bench.cache_state(doc["provenance"].get("settings", {}))
    compile_col = {"empty": "Compile s, empty cache", "not empty": "Compile s, cache not empty",
                   "not recorded": "Compile s, cache unknown"}[cache]
    return (columns.timing("Median", lambda p: p.row.get("latency_ms")), columns.speedup(),
            columns.number(compile_col, lambda p: p.row.get("compile_s"), ".1f"),
            columns.words("Status", lambda p: p.row["status"]))


def key_table(doc: dict[str, Any]) -> str:
    """The key columns of every row, a row per mode (with its own compile time and status)."""
    return columns.markdown(placed(doc["rows"]), KEY, key_values(doc))


# The stored "Run it yourself" notebook calls these two: its outputs are a recorded execution,
# so its source moves to ``key_table`` when it is next executed and stored.
def key_columns(doc: dict[str, Any]) -> list[str]:
    return columns.grid([], KEY, key_values(doc))[0]


def key_cells(row: dict[str, Any]) -> list[str]:
    """One row of a run of one command, as ``key_table`` shows it."""
    values = key_values({"provenance": {}})  # the cells do not depend on the cache's state
    return columns.grid([rows.InRun(row, 1, 1, True)], KEY, values)[2][0]


def table(doc: dict[str, Any]) -> str:
    """The page's view of a run: the key columns, then every column in a block that opens."""
    return key_table(doc) + "\n\n" + render.details(
        "Every column", markdown_table(doc["rows"], doc["provenance"]))


def fastest(f: findings.Findings) -> str:
    """The fastest mode of each (model, batch) and its speed over eager's."""
    return render.markdown_table(("Model · batch", "Fastest", "× eager"), [
        (f"{x.model} · {x.batch}", f"`{x.mode}`", render.num(x.speedup, ".2f"))
        for x in f.fastest])


def rich_table(doc: dict[str, Any], title: str | None = None) -> Table:
    return columns.rich(placed(doc["rows"]), KEY, detail_columns(doc["provenance"]),
                        title=title, stamp=stamp(doc, "this run"))


# ---- this run against a recorded one --------------------------------------------------------

# The settings that change what a latency means: a ratio across any of them (or across device
# types) is not like for like.
COMPARED_SETTINGS = ("dtype", "channels_last", "tf32", "cudnn_benchmark")


def bound_by(doc: dict[str, Any]) -> dict[Key, str]:
    """What each row's latency waits on: on a GPU, a replay on the GPU, the others on the host
    where eager hardly grows with the batch (``findings.growth``); "–" with one batch size."""
    cpu = results.device_type_of(doc) == "cpu"
    out = {}
    for key in by_key(doc):
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


@dataclass(frozen=True)
class Against:
    """A row of this run, the recorded run's of the same key (or None), and what it waits on."""

    row: dict[str, Any]
    old: dict[str, Any] | None
    bound: str


def against(doc: dict[str, Any], other: dict[str, Any]) -> list[Against]:
    """This run beside a recorded one, matched on (model, batch size, mode), with what each
    row waits on (from the recorded run, which has the batch sizes to tell, else this one)."""
    recorded = by_key(other)
    bound = {**bound_by(doc), **bound_by(other)}
    return [Against(r, recorded.get(k), bound.get(k, "–"))
            for r in doc["rows"] for k in [(r["model"], r["batch_size"], r["mode"])]]


def _ratio(a: Against) -> float | None:
    now_ms, old_ms = rows.median(a.row), rows.median(a.old)
    return now_ms / old_ms if now_ms and old_ms else None


def ratios(doc: dict[str, Any], other: dict[str, Any]) -> list[tuple[str, float]]:
    """(what the row waits on, this run's median over the recorded one's) where both timed it."""
    return [(a.bound, r) for a in against(doc, other) if (r := _ratio(a))]


# The two medians, and what the page reads off them.
LATENCIES = (columns.ms("This", lambda a: rows.median(a.row)),
             columns.ms("Recorded", lambda a: rows.median(a.old)))
AGAINST = (columns.number("This/recorded", _ratio, ".2f"),
           columns.number("This speedup", lambda a: a.row.get("speedup"), ".2f"),
           columns.number("Recorded speedup", lambda a: (a.old or {}).get("speedup"), ".2f"),
           columns.words("Bound by", lambda a: a.bound))


def compare_rows(doc: dict[str, Any], other: dict[str, Any]) -> list[list[str]]:
    """The comparison's cells a column per key part, for a terminal (``COMPARE_COLUMNS``)."""
    return columns.grid(against(doc, other), KEY, (*LATENCIES, *AGAINST), joined=False)[2]


# A terminal's table has no footer: its headers keep their unit.
COMPARE_COLUMNS = ("Model", "Batch", "Mode", "This ms", "Recorded ms", "This/recorded",
                   "This speedup", "Recorded speedup", "Bound by")


def setting_differences(doc: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """What makes a recorded bench run unlike this one: its settings, or the device's type."""
    return compare.setting_differences(doc, other, COMPARED_SETTINGS, device_by="device_type")


def compare_title(doc: dict[str, Any], other: dict[str, Any]) -> str:
    return compare.title(doc, other, COMPARED_SETTINGS, device_by="device_type")


def compare_page(doc: dict[str, Any], other: dict[str, Any]) -> str:
    """The comparison as a page shows it, the two latencies in a block that opens (to fit)."""
    pairs = against(doc, other)
    spans: dict[str, list[float]] = {}
    for bound, ratio in ratios(doc, other):  # the ratio's range per kind of bound
        spans.setdefault(bound, []).append(ratio)
    summary = render.markdown_table(("Bound by", "This ÷ recorded, lowest", "Highest"), [
        (bound, f"{min(v):.2f}", f"{max(v):.2f}") for bound, v in spans.items()], align="lrr")
    return (f"{compare_title(doc, other)}:\n\n"
            + columns.markdown(pairs, KEY, AGAINST) + "\n\n"
            + render.details("Median latencies: This, Recorded",
                             columns.markdown(pairs, KEY, LATENCIES)) + "\n\n" + summary)


def compare_markdown(doc: dict[str, Any], other: dict[str, Any]) -> str:
    return compare.markdown(compare_title(doc, other), doc, other, COMPARE_COLUMNS,
                            compare_rows(doc, other), left_last=True)


def compare_table(doc: dict[str, Any], other: dict[str, Any]) -> Table:
    return compare.rich_table(compare_title(doc, other), doc, other, COMPARE_COLUMNS,
                              compare_rows(doc, other), left_last=True)


def ranges(doc: dict[str, Any]) -> str:
    """Each model's speedup in each mode, lowest to highest over the batch sizes."""
    f = findings.of(doc)
    modes = list(dict.fromkeys(r.mode for r in f.ranges))
    return render.markdown_table(["Model", *modes], (
        [m, *(render.span((r.speedup.low, r.speedup.high), ".2f", "x")
              if (r := f.range_of(m, mode)) else "–" for mode in modes)] for m in f.models))


def reading(doc: dict[str, Any]) -> str:
    """A row per (model, batch): its fastest mode, and at a model's largest batch how eager grew
    from its smallest against the work (``findings.growth``)."""
    f = findings.of(doc)
    grown = {(g.model, g.large): g for g in f.growth}
    head = ["Model · batch", "Fastest", "× eager"]
    if grown:
        head += ["Eager grew", "Work grew", "Eager waits on"]
    body = []
    for x in f.fastest:
        g = grown.get((x.model, x.batch))
        body.append([f"{x.model} · {x.batch}", f"`{x.mode}`", render.num(x.speedup, ".2f"),
                     *((f"{g.time_ratio:.2f}x", f"{g.work_ratio:g}x", g.bound.value) if g
                       else ("–",) * 3 if grown else ())])
    return render.markdown_table(head, body)
