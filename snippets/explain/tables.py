"""The graph-breaks page's tables, drawn from results documents (the CLI's markdown report too);
nothing measures. The numbers the page's prose places come from ``findings``."""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.explain import findings, logs


def _prose(text: str) -> str:
    """A reason as Markdown: Dynamo quotes Python's reprs (``<function f>``, ``<class 'x'>``),
    which outside a code span the page would take for HTML tags and drop."""
    parts = text.split("`")  # even parts are prose, odd ones inside code
    return "`".join(p if i % 2 else p.replace("<", "&lt;").replace(">", "&gt;")
                    for i, p in enumerate(parts))


def _label(row: dict[str, Any]) -> str:
    return f"{row['cause']}: {row['kind']}, {row['variant']}"


def _first_break(row: dict[str, Any]) -> str:
    if not row["break_reasons"]:
        return "–"
    first = row["break_reasons"][0]
    # Every example lives in breaks.py, shown above: its name and line are enough, and the
    # shorter cell keeps the table within a desktop page.
    where = first["location"].rsplit("/", 1)[-1]
    return f"{_prose(first['reason'])}<br>`{where}`"


def causes(doc: dict[str, Any]) -> str:
    """Graphs and breaks of every example, and the first break with where it happened."""
    head = ("Cause: written as", "Graphs", "Breaks", "First break, and where")
    return render.markdown_table(head, (
        (_label(r), r["graph_count"], r["graph_break_count"], _first_break(r))
        for r in doc["rows"]), left=1, left_last=True)


def models(doc: dict[str, Any]) -> str:
    head = ("Model", "Graphs", "Breaks", "Calls in the graphs")
    return render.markdown_table(head, ((r["model"], r["graph_count"], r["graph_break_count"],
                                         r["ops"]) for r in doc["rows"]))


def costs(doc: dict[str, Any]) -> str:
    """Eager and compiled latency of every example, a row per way of writing it.

    Graphs, no break count: files made before commit e01dde6 (where the explainer began to read
    Dynamo's own records) hold graphs - 1 there, which disagrees with the table of causes."""
    head = ("Cause: written as", "Graphs", "Eager ms", "Compiled ms", "Speedup", "Verdict")
    rows = []
    for r in doc["rows"]:
        first = (_label(r), r["graph_count"], render.plain(r["eager_ms"]["median"], ".3g"))
        if r["compiled_ms"] is None:  # the compiled side failed: its fault in the verdict
            rows.append((*first, "–", "–", r.get("status", "error")))
            continue
        # Three significant figures and the verdict of the paired rounds: a 0.996x row whose
        # rounds all ran slower compiled reads as slower, not as a 1.00x tie.
        ratio, iqr, said = findings.paired(r)
        rows.append((*first, render.plain(r["compiled_ms"]["median"], ".3g"),
                     f"{ratio:#.3g}x ±{iqr / 2:.2g}", said.value))
    return render.markdown_table(head, rows)


def costs_profile(doc: dict[str, Any]) -> str:
    """Each profiled variant's kernels and busy time a call, eager and compiled, beside the
    compiled call's median (a call the device sat idle in takes longer than its kernels)."""
    found = findings.costs(doc).profiled
    # The speedup is the costs table's, beside it: this one stays within the page's width.
    head = ("Written as", "Kernels, eager", "Kernels, compiled", "Busy µs, eager",
            "Busy µs, compiled", "Call µs, compiled")
    return render.markdown_table(head, (
        (p.variant, format(p.kernels_eager, ".0f"), format(p.kernels_compiled, ".0f"),
         _us(p.busy_us_eager), _us(p.busy_us_compiled), _us(p.compiled_us)) for p in found))


def _us(value: float) -> str:
    return format(value, ".3g") if value < 1000 else format(value, ",.0f")


def log(text: str) -> str:
    return f"```console\n$ {logs.LOGS_COMMAND}\n{text}\n```"


def error(text: str) -> str:
    return f"```text\n{text}\n```"


# ---- the transformer's fast path -------------------------------------------------------------

def fastpath_graph(doc: dict[str, Any]) -> str:
    head = ("Fast path", "Graphs", "Breaks", "Calls in the graph (count)")
    return render.markdown_table(head, (
        ("on" if r["fastpath"] else "off", r["graph_count"], r["graph_break_count"],
         ", ".join(f"`{name}` ({n})" for name, n in r["ops"].items())) for r in doc["rows"]),
        left_last=True)


def fastpath_latency(doc: dict[str, Any]) -> str:
    """The four ways of running the transformer per batch; speedup over eager with fast path."""
    head = ("Batch · variant", "Compile s", "Median ms", "IQR ms", "Speedup", "rel err")
    return render.markdown_table(head, (
        (f"{r['batch_size']} · {r['variant']}", render.num(r["compile_s"], ".1f"),
         render.plain(r["latency_ms"]["median"], ".3g"),
         render.plain(r["latency_ms"]["iqr"], ".2g"),
         f"{r['speedup']:.2f}x", f"{r['rel_err']:.1e}") for r in doc["rows"]))


def fastpath_ratios(doc: dict[str, Any]) -> str:
    """Per batch, ``findings.FastpathBatch``'s ratios and the fastest variant."""
    # times over times, not speedups: "÷", as the guide writes a ratio of two medians' times
    head = ("Batch", "Compiled ÷ eager", "Compiled, no fast path ÷ eager", "÷ compiled with it",
            "Fastest")
    return render.markdown_table(head, (
        (b.batch, f"{b.compiled_of_eager:.2f}", f"{b.compiled_off_of_eager:.2f}",
         f"{b.off_of_on:.2f}", f"*{b.fastest}*") for b in findings.fastpath(doc).batches),
        left_last=True)


def fastpath_spread(doc: dict[str, Any]) -> str:
    """Per batch, ``findings.Spread``: whether the run can rank its variants."""
    head = ("Batch", "Variants", "Medians within ms", "Widest IQR ms", "Widest", "Ranked")
    return render.markdown_table(head, (
        (s.batch, s.variants, render.plain(s.span_ms, ".3g"),
         render.plain(s.widest_iqr_ms, ".3g"), f"*{s.widest}*", s.ranked.value)
        for s in findings.fastpath(doc).spreads), align="rrrrll")


# ---- one function explained, and the explainer against Dynamo's log ---------------------------

def explanation(exp: Any) -> str:
    """``python -m snippets.explain --format markdown``: one row per break."""
    head = ("#", "Reason", "Where", "Hint")
    table = render.markdown_table(head, (
        (i, _prose(r.reason) + (f" ({r.skipped})" if r.skipped else ""),
         f"`{r.location}`" + (f" ({r.times}×)" if r.times > 1 else ""),
         r.hint or "–") for i, r in enumerate(exp.break_reasons, 1)), left=4)
    return f"Graphs: {exp.graph_count} · graph breaks: {exp.graph_break_count}\n\n{table}"


def _lines(lines: list[int] | None, agrees: bool) -> str:
    if lines is None:
        return "raised ✗"
    return (", ".join(map(str, lines)) or "none") + (" ✓" if agrees else " ✗")


def agreement(doc: dict[str, Any]) -> str:
    """Per file of cases, the lines each explainer names (✓: the logged ones), then where each
    case comes from; the page places the counts (``findings.agreement``)."""
    files = list(dict.fromkeys(r["file"] for r in doc["rows"]))  # in the rows' order
    return "\n\n".join([
        *(render.details(f"The {sum(r['file'] == f for r in doc['rows'])} cases in {f}",
                         agreement_lines(doc, f)) for f in files),
        render.details("Where each case comes from", agreement_sources(doc))])


def agreement_lines(doc: dict[str, Any], file: str) -> str:
    head = ("Case", "Logged", "snippets", "torch")
    return render.markdown_table(head, (
        (f"`{r['case']}`", ", ".join(map(str, r["logged"])) or "none",
         _lines(r["explain"], r["agrees"]), _lines(r["torch_explain"], r["torch_agrees"]))
        for r in doc["rows"] if r["file"] == file), left=1)


def agreement_sources(doc: dict[str, Any]) -> str:
    """Where each case comes from, as links into PyTorch's repository."""
    base = "https://github.com/pytorch/pytorch/blob/main/"
    head = ("Case", "After")
    rows = []
    for r in doc["rows"]:
        path, _, section = r["source"].partition(": ")
        rows.append((f"`{r['case']}`", f"[{path.rsplit('/', 1)[-1]}]({base}{path}): {section}"))
    return render.markdown_table(head, rows, left=2)
