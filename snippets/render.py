"""Rendering results: Markdown for the site, rich tables for a terminal, the provenance stamp.

Everything here takes a results document (or its rows) and returns text or a rich renderable;
nothing measures, and nothing prints.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

COLUMNS = ("Model", "Batch", "Mode", "Compile s", "Median ms", "IQR ms", "Speedup", "rel err",
           "Mem MB", "TFLOP/s", "% peak", "Graphs", "Breaks", "Status")


def _num(value: float | None, fmt: str) -> str:
    return "–" if value is None else format(value, fmt)


def _ms(value: float) -> str:
    """Latencies span 0.1 ms to seconds; three significant figures read well across that."""
    return format(value, ".3g") if value < 100 else format(value, ".0f")


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
    return [
        row["model"], str(row["batch_size"]), row["mode"], _num(row.get("compile_s"), ".1f"),
        _ms(lat["median"]) if lat else "–", _ms(lat["iqr"]) if lat else "–", speed,
        _num(row.get("rel_err"), ".1e"), _num(row.get("peak_mem_mb"), ".0f"),
        _num(row.get("tflops"), ".3g"), _num(row.get("pct_of_peak"), ".1f"),
        _num(row.get("graph_count"), "d"),
        _num(row.get("graph_breaks"), "d"), status,
    ]


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|")


def markdown_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |",
             "|" + "|".join("---" if i < 3 or i == len(COLUMNS) - 1 else "--:"
                            for i in range(len(COLUMNS))) + "|"]
    lines += ["| " + " | ".join(_escape(c) for c in row_cells(r)) + " |" for r in rows]
    return "\n".join(lines)


def stamp(doc: dict[str, Any], kind: str = "recorded") -> str:
    """The line under every table: where, with what, when, from which commit, and how it came."""
    p = doc["provenance"]
    parts = [p["device"] or "unknown device"]
    if p.get("driver"):
        parts.append(f"driver {p['driver']}")
    if p.get("cuda"):
        parts.append(f"CUDA {p['cuda']}")
    parts.append(f"torch {p['torch']}")
    if p.get("triton"):
        parts.append(f"triton {p['triton']}")
    s = p.get("settings", {})
    if s.get("dtype"):
        parts.append(s["dtype"] + (", channels_last" if s.get("channels_last") else ""))
    parts.append(f"{(p.get('date') or '')[:10]}")
    parts.append(f"commit {p.get('commit') or 'unknown'}")
    incomplete = "" if doc.get("complete") else " (incomplete run)"
    return f"{kind}{incomplete}: " + " · ".join(parts)


def rich_table(doc: dict[str, Any], title: str | None = None) -> Table:
    table = Table(title=title, caption=stamp(doc, "this run"), caption_justify="left")
    for i, col in enumerate(COLUMNS):
        table.add_column(col, justify="left" if i < 3 or i == len(COLUMNS) - 1 else "right")
    for row in doc["rows"]:
        style = None if row["status"] == "ok" else ("red" if row["status"] != "noisy" else "yellow")
        table.add_row(*row_cells(row), style=style)
    return table


def compare_rows(doc: dict[str, Any], other: dict[str, Any]) -> list[list[str]]:
    """This run beside a recorded one, matched on (model, batch size, mode)."""
    def key(r: dict[str, Any]) -> tuple[str, int, str]:
        return r["model"], r["batch_size"], r["mode"]

    recorded = {key(r): r for r in other["rows"]}
    out = []
    for row in doc["rows"]:
        old = recorded.get(key(row))
        now_ms = (row.get("latency_ms") or {}).get("median")
        old_ms = ((old or {}).get("latency_ms") or {}).get("median")
        ratio = f"{now_ms / old_ms:.2f}" if now_ms and old_ms else "–"
        out.append([row["model"], str(row["batch_size"]), row["mode"],
                    _ms(now_ms) if now_ms else "–", _ms(old_ms) if old_ms else "–", ratio,
                    _num(row.get("speedup"), ".2f"), _num((old or {}).get("speedup"), ".2f")])
    return out


COMPARE_COLUMNS = ("Model", "Batch", "Mode", "This ms", "Recorded ms", "This/recorded",
                   "This speedup", "Recorded speedup")


def compare_markdown(doc: dict[str, Any], other: dict[str, Any]) -> str:
    lines = ["| " + " | ".join(COMPARE_COLUMNS) + " |",
             "|" + "|".join("---" if i < 3 else "--:" for i in range(len(COMPARE_COLUMNS))) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in compare_rows(doc, other)]
    return "\n".join(lines) + f"\n\nthis run: {stamp(doc, 'this run')}\n\n{stamp(other)}"


def compare_table(doc: dict[str, Any], other: dict[str, Any]) -> Table:
    table = Table(title="This run against a recorded one",
                  caption=f"{stamp(doc, 'this run')}\n{stamp(other)}", caption_justify="left")
    for i, col in enumerate(COMPARE_COLUMNS):
        table.add_column(col, justify="left" if i < 3 else "right")
    for cells in compare_rows(doc, other):
        table.add_row(*cells)
    return table


def _by_key(doc: dict[str, Any]) -> dict[tuple[str, int, str], dict[str, Any]]:
    return {(r["model"], r["batch_size"], r["mode"]): r for r in doc["rows"]}


def _median(row: dict[str, Any] | None) -> float | None:
    return ((row or {}).get("latency_ms") or {}).get("median")


def bench_findings(doc: dict[str, Any]) -> str:
    """What a bench table says, as sentences computed from it, so the prose under a table can
    never disagree with the numbers in it."""
    rows = _by_key(doc)
    models = list(dict.fromkeys(r["model"] for r in doc["rows"]))
    sizes = sorted({r["batch_size"] for r in doc["rows"]})
    out = []
    for model in models:
        eager = {bs: _median(rows.get((model, bs, "eager"))) for bs in sizes}
        if len(sizes) > 1 and eager[sizes[0]] and eager[sizes[-1]]:
            grow = eager[sizes[-1]] / eager[sizes[0]]
            work = sizes[-1] / sizes[0]
            verdict = ("so eager is bound by the host, issuing kernels, not by the device doing "
                       "them" if grow < work / 4 else "so the device's work dominates eager")
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
    bad = [r for r in doc["rows"] if r["status"] in ("mismatch", "oom", "error")]
    noisy = [r for r in doc["rows"] if r["status"] == "noisy"]
    out.append(f"- {len(noisy)} of {len(doc['rows'])} rows are marked noisy, "
               f"{len(bad)} failed or mismatched.")
    return "\n".join(out)
