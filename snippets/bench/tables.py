"""The benchmark's tables: Markdown for the site, rich tables for a terminal, a run against a
recorded one, and the findings the page states under its table.

Everything here takes a results document (or its rows) and returns text or a rich renderable;
nothing measures, and nothing prints.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

from snippets import bench
from snippets.core import render, results
from snippets.core.results import stamp

COLUMNS = ("Model", "Batch", "Mode", "Compile s", "Median ms", "IQR ms", "Speedup", "rel err",
           "Call peak MB", "TFLOP/s", "% peak", "Graphs", "Breaks", "Status")
Key = tuple[str, int, str]
CUDA_GRAPH_MODES = ("reduce-overhead", "max-autotune")  # the modes that replay CUDA graphs


def row_cells(row: dict[str, Any]) -> list[str]:
    lat = row.get("latency_ms") or {}
    speed = "–"
    if row.get("speedup") is not None:
        speed = f"{row['speedup']:.2f}x"
        if row.get("speedup_iqr") is not None:
            speed += f" ± {row['speedup_iqr'] / 2:.2f}"
        if row["status"] == "mismatch":
            speed = f"~~{speed}~~ (invalid)"
    status = row["status"] + (f": {row['message']}" if row.get("message") else "")
    num = render.num
    peak = num(row.get("peak_mem_mb"), ".0f")
    if row["mode"] in CUDA_GRAPH_MODES and row.get("peak_mem_mb") is not None:
        peak += " (no pool)"  # the graph's pool is taken at capture, not by the call
    return [
        row["model"], str(row["batch_size"]), row["mode"], num(row.get("compile_s"), ".1f"),
        render.ms(lat.get("median")), render.ms(lat.get("iqr")), speed,
        num(row.get("rel_err"), ".1e"), peak,
        num(row.get("tflops"), ".3g"), num(row.get("pct_of_peak"), ".1f"),
        num(row.get("graph_count"), "d"), num(row.get("graph_breaks"), "d"), status,
    ]


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """Every column of every row: what a terminal shows, and the page's detail block."""
    return render.markdown_table(COLUMNS, (row_cells(r) for r in rows), left=3, left_last=True)


def key_columns(doc: dict[str, Any]) -> tuple[str, ...]:
    """The columns a reader came for; the compile column says whether the cache was warm."""
    cache = bench.cache_state(doc["provenance"].get("settings", {}))
    compile_col = {"empty": "Compile s, empty cache", "not empty": "Compile s, cache not empty",
                   "not recorded": "Compile s, cache unknown"}[cache]
    return ("Model · batch · mode", "Median ms", "Speedup", "IQR %", compile_col, "Status")


def key_cells(row: dict[str, Any]) -> list[str]:
    lat = row.get("latency_ms") or {}
    spread = f"{100 * lat['iqr'] / lat['median']:.1f}" if lat.get("median") else "–"
    speed = row_cells(row)[6]
    return [f"{row['model']} · {row['batch_size']} · {row['mode']}", render.ms(lat.get("median")),
            speed, spread, render.num(row.get("compile_s"), ".1f"), row["status"]]


def table(doc: dict[str, Any]) -> str:
    """The page's view of a run: the key columns, then every column in a block that opens."""
    key = render.markdown_table(key_columns(doc), (key_cells(r) for r in doc["rows"]),
                                left_last=True)
    return key + "\n\n" + render.details("Every column of this run (IQR ms, rel err, memory, "
                                          "TFLOP/s, % of peak, graphs, breaks, status)",
                                          markdown_table(doc["rows"]))


def report(doc: dict[str, Any]) -> str:
    """The table and what it says, in one block under one stamp."""
    return table(doc) + "\n\nWhat the table says, computed from it:\n\n" + findings(doc)


def rich_table(doc: dict[str, Any], title: str | None = None) -> Table:
    table = Table(title=title, caption=stamp(doc, "this run"), caption_justify="left")
    for i, col in enumerate(COLUMNS):
        table.add_column(col, justify="left" if i < 3 or i == len(COLUMNS) - 1 else "right")
    for row in doc["rows"]:
        style = None if row["status"] == "ok" else ("red" if row["status"] != "noisy" else "yellow")
        table.add_row(*row_cells(row), style=style)
    return table


# ---- this run against a recorded one --------------------------------------------------------

# The settings that change what a latency means: a ratio across any of them is not like for like.
COMPARED_SETTINGS = ("dtype", "channels_last", "tf32", "cudnn_benchmark")


def setting_differences(doc: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """``dtype: bf16 here, fp32 recorded`` for each setting (and device type) that differs."""
    mine, theirs = doc["provenance"], other["provenance"]
    out = []
    if mine.get("device_type") != theirs.get("device_type"):
        out.append(f"device: {mine.get('device')} here, {theirs.get('device')} recorded")
    for key in COMPARED_SETTINGS:
        a, b = mine.get("settings", {}).get(key), theirs.get("settings", {}).get(key)
        if a != b:
            out.append(f"{key}: {a} here, {b} recorded")
    return out


def bound_by(doc: dict[str, Any]) -> dict[Key, str]:
    """What each row's latency waits on, read from the run itself. On a CPU the host does all
    the work ("host (CPU run)"). On a GPU a CUDA-graph replay waits on the GPU; eager and the
    default mode wait on the host where eager hardly grows with the batch (the rule
    ``findings`` states), else on the GPU; "–" where the run has one batch size and cannot tell."""
    cpu = results.device_type_of(doc) == "cpu"
    out = {}
    for key in _by_key(doc):
        growth = _eager_growth(doc, key[0])
        if cpu:
            out[key] = "host (CPU run)"
        elif key[2] in CUDA_GRAPH_MODES:
            out[key] = "GPU (replay)"
        elif growth is None:
            out[key] = "–"
        else:
            out[key] = "host" if _host_bound(growth) else "GPU"
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
        now_ms, old_ms = _median(row), _median(old)
        ratio = f"{now_ms / old_ms:.2f}" if now_ms and old_ms else "–"
        out.append([*map(str, key), render.ms(now_ms), render.ms(old_ms), ratio,
                    render.num(row.get("speedup"), ".2f"),
                    render.num((old or {}).get("speedup"), ".2f"), bound.get(key, "–")])
    return out


COMPARE_COLUMNS = ("Model", "Batch", "Mode", "This ms", "Recorded ms", "This/recorded",
                   "This speedup", "Recorded speedup", "Bound by")


def compare_title(doc: dict[str, Any], other: dict[str, Any]) -> str:
    diffs = setting_differences(doc, other)
    if not diffs:
        return "This run against a recorded one, same settings"
    return "This run against a recorded one, NOT like for like: " + "; ".join(diffs)


def compare_page(doc: dict[str, Any], other: dict[str, Any]) -> str:
    """The comparison as a page shows it: the row label in one column and the two latencies in
    a block that opens, so the ratios and the bound fit a desktop page without scrolling."""
    rows = compare_rows(doc, other)
    head = ("Model · batch · mode", *COMPARE_COLUMNS[5:])
    body = ([" · ".join(cells[:3]), *cells[5:]] for cells in rows)
    latencies = render.markdown_table(("Model · batch · mode", *COMPARE_COLUMNS[3:5]),
                                      ([" · ".join(cells[:3]), *cells[3:5]] for cells in rows))
    spans: dict[str, list[float]] = {}
    for cells in rows:  # the ratio's range per kind of bound, read from the table
        if cells[5] != "–":
            spans.setdefault(cells[-1], []).append(float(cells[5]))
    summary = "\n".join(f"- bound by {bound}: this/recorded from {min(v):.2f} to {max(v):.2f}"
                        for bound, v in spans.items())
    return (f"{compare_title(doc, other)}:\n\n"
            + render.markdown_table(head, body, left_last=True) + "\n\n"
            + render.details("The median latencies behind the ratio (This ms, Recorded ms)",
                             latencies) + "\n\n" + summary)


def compare_markdown(doc: dict[str, Any], other: dict[str, Any]) -> str:
    table = render.markdown_table(COMPARE_COLUMNS, compare_rows(doc, other), left=3,
                                  left_last=True)
    return (f"{compare_title(doc, other)}\n\n{table}\n\n{stamp(doc, 'this run')}\n\n"
            f"{stamp(other)}")


def compare_table(doc: dict[str, Any], other: dict[str, Any]) -> Table:
    table = Table(title=compare_title(doc, other),
                  caption=f"{stamp(doc, 'this run')}\n{stamp(other)}", caption_justify="left")
    for i, col in enumerate(COMPARE_COLUMNS):
        table.add_column(col, justify="left" if i < 3 or col == "Bound by" else "right")
    for cells in compare_rows(doc, other):
        table.add_row(*cells)
    return table


# ---- findings ---------------------------------------------------------------------------------

def _by_key(doc: dict[str, Any]) -> dict[Key, dict[str, Any]]:
    return {(r["model"], r["batch_size"], r["mode"]): r for r in doc["rows"]}


def _median(row: dict[str, Any] | None) -> float | None:
    return ((row or {}).get("latency_ms") or {}).get("median")


def _eager_growth(doc: dict[str, Any], model: str) -> tuple[float, float] | None:
    """How many times longer eager takes at the largest batch than at the smallest, and how
    many times the work that is; None with one batch size or no eager times."""
    rows = _by_key(doc)
    sizes = sorted({r["batch_size"] for r in doc["rows"] if r["model"] == model})
    if len(sizes) < 2:
        return None
    low, high = (_median(rows.get((model, bs, "eager"))) for bs in (sizes[0], sizes[-1]))
    return (high / low, sizes[-1] / sizes[0]) if low and high else None


def _host_bound(growth: tuple[float, float]) -> bool:
    """Eager grew by less than a quarter of the added work: the device had time to spare, so
    the host issuing the kernels set the pace."""
    grow, work = growth
    return grow < work / 4


def findings(doc: dict[str, Any]) -> str:
    """What a bench table says, as sentences computed from it, so the prose under a table can
    never disagree with the numbers in it."""
    rows = _by_key(doc)
    models = list(dict.fromkeys(r["model"] for r in doc["rows"]))
    sizes = sorted({r["batch_size"] for r in doc["rows"]})
    out = []
    for model in models:
        eager = {bs: _median(rows.get((model, bs, "eager"))) for bs in sizes}
        growth = _eager_growth(doc, model)
        if growth:
            grow, work = growth
            if not _host_bound(growth):
                verdict = "so the device's work dominates eager"
            elif results.device_type_of(doc) == "cuda":
                verdict = ("so eager is bound by the host, issuing kernels, not by the device "
                           "doing them")
            else:  # host and device are one machine: nothing is issued, the overhead is per call
                verdict = ("so most of eager's time is a fixed cost per call (Python, the "
                           "dispatcher, each operator's setup), not arithmetic that grows with "
                           "the batch")
            out.append(f"- **{model}**: eager takes {grow:.2f} times as long at batch "
                       f"{sizes[-1]} as at batch {sizes[0]}, for {work:g} times the work; "
                       f"{verdict}.")
        for bs in sizes:
            timed = [(r["mode"], _median(r)) for (m, b, _), r in rows.items()
                     if m == model and b == bs and _median(r) and r["status"] != "mismatch"]
            if not timed:
                continue
            best, best_ms = min(timed, key=lambda t: t[1])
            e = eager.get(bs)
            gain = f", {e / best_ms:.2f} times eager's speed" if e and best != "eager" else ""
            out.append(f"- {model} at batch {bs}: fastest is `{best}`{gain}.")
    even = [f"{r['model']} · {r['batch_size']} · `{r['mode']}`" for r in doc["rows"]
            if r["mode"] != "eager" and r["status"] in ("ok", "noisy")
            and r.get("speedup") is not None and r.get("speedup_iqr") is not None
            and abs(r["speedup"] - 1) <= r["speedup_iqr"] / 2]
    if even:  # the verdict's own rule (claims.verdict): half the IQR either side of the ratio
        out.append(f"- {', '.join(even)}: the speedup, give or take half its interquartile "
                   "range, includes 1.00x, so this run cannot tell compiled from eager there.")
    out += _later_compiles(doc)
    bad = [r for r in doc["rows"] if r["status"] in ("mismatch", "oom", "error")]
    noisy = [r for r in doc["rows"] if r["status"] == "noisy"]
    out.append(f"- {len(noisy)} of {len(doc['rows'])} rows are marked noisy, "
               f"{len(bad)} failed or mismatched.")
    return "\n".join(out)


def _later_compiles(doc: dict[str, Any]) -> list[str]:
    """In a run that began with an empty cache, how long each later mode of a group took to
    compile against the group's first: one process compiles the modes in turn, and a later one
    reuses what an earlier one left in the cache (generated kernels, autotuning results), so
    "empty" is true of the first compile only."""
    if bench.cache_state(doc["provenance"].get("settings", {})) != "empty":
        return []
    first: dict[tuple[str, int], float] = {}
    later: dict[str, list[float]] = {}
    for r in doc["rows"]:
        if r.get("compile_s") is None:
            continue
        group = (r["model"], r["batch_size"])
        if group not in first:
            first[group] = r["compile_s"]
        elif first[group] > 0:
            later.setdefault(r["mode"], []).append(r["compile_s"] / first[group])
    return [f"- The run began with an empty Inductor cache, yet `{mode}`, compiled after the "
            f"first mode of each group in the same process, took {render.span(v, '.2f')} times "
            "that mode's compile time: a later compile reuses what earlier ones cached (generated "
            "kernels, autotuning results), so only the first compile of a process is fully cold."
            for mode, v in later.items()]


def headline(doc: dict[str, Any]) -> str:
    """What a run buys, per model: each compiled mode's speedup over eager across the batch
    sizes measured (lowest to highest), from the rows that computed the right answer."""
    sizes = sorted({r["batch_size"] for r in doc["rows"]})
    out = []
    for model in dict.fromkeys(r["model"] for r in doc["rows"]):
        parts = []
        for mode in dict.fromkeys(r["mode"] for r in doc["rows"] if r["mode"] != "eager"):
            got = sorted(r["speedup"] for r in doc["rows"] if r["model"] == model
                         and r["mode"] == mode and r.get("speedup") is not None
                         and r["status"] in ("ok", "noisy"))
            if got:
                parts.append(f"`{mode}` {render.span(got, '.2f', 'x')}")
        if parts:
            out.append(f"- **{model}**: " + ", ".join(parts) + " the speed of eager")
    batch = ("Batch size " if len(sizes) == 1 else "Batch sizes ") + ", ".join(map(str, sizes))
    return "\n".join(out) + f"\n\n{batch}; only rows that computed eager's answer."
