"""The graph-breaks page's tables and findings, drawn from results documents; nothing measures."""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.explain import fastpath, logs


def _prose(text: str) -> str:
    """A reason as Markdown: Dynamo quotes Python's reprs (``<function f>``, ``<class 'x'>``),
    which outside a code span the page would take for HTML tags and drop."""
    parts = text.split("`")  # even parts are prose, odd ones inside code
    return "`".join(p if i % 2 else p.replace("<", "&lt;").replace(">", "&gt;")
                    for i, p in enumerate(parts))


def _first_break(row: dict[str, Any]) -> str:
    first = row["break_reasons"][0] if row["break_reasons"] else None
    if not first:
        return "–"
    # Every example lives in breaks.py, shown above: its name and line are enough, and the
    # shorter cell keeps the table within a desktop page.
    where = first["location"].rsplit("/", 1)[-1]
    return f"{_prose(first['reason'])}<br>`{where}`"


def causes(doc: dict[str, Any]) -> str:
    """Graphs and breaks of every example, and the first break with where it happened."""
    head = ("Cause: written as", "Graphs", "Breaks", "First break, and where")
    return render.markdown_table(head, (
        (f"{r['cause']}: {r['kind']}, {r['variant']}", r["graph_count"], r["graph_break_count"],
         _first_break(r)) for r in doc["rows"]), left=1, left_last=True)


def models(doc: dict[str, Any]) -> str:
    head = ("Model", "Graphs", "Breaks", "Calls in the graphs")
    return render.markdown_table(head, ((r["model"], r["graph_count"], r["graph_break_count"],
                                         r["ops"]) for r in doc["rows"]))


def costs(doc: dict[str, Any]) -> str:
    """What each break costs: eager and compiled latency of every example, a row per way of
    writing it, labelled by its cause.

    Graphs only, no break count: the graph count means the same in every recorded file, while
    files recorded before the explainer read Dynamo's own graph-break records (commit e01dde6)
    hold graphs - 1 as their break count, which disagrees with the live table of causes."""
    head = ("Cause: written as", "Graphs", "Eager ms", "Compiled ms", "Speedup")
    return render.markdown_table(head, (
        (f"{r['cause']}: {r['kind']}, {r['variant']}", r["graph_count"],
         format(r["eager_ms"]["median"], ".3g"), format(r["compiled_ms"]["median"], ".3g"),
         f"{r['speedup']:.2f}x") for r in doc["rows"]))


def costs_findings(doc: dict[str, Any]) -> str:
    """How many variants ran slower compiled than eager, and the NumPy rows, computed from the
    rows, so the sentences under a table agree with it on every machine and every run."""
    rows = doc["rows"]
    slower = [r for r in rows if r["speedup"] < 1]
    fixed_slower = [r for r in slower if r["kind"] == "fixed"]
    numpy = [r for r in rows if "NumPy" in r["variant"]]
    out = [f"- {len(slower)} of {len(rows)} variants run slower compiled than eager, "
           f"{len(fixed_slower)} of them fixed versions."]
    if numpy:
        speeds = " and ".join(f"{r['speedup']:.2f}x" for r in numpy)
        out.append(f"- The NumPy variants ({', '.join(r['variant'] for r in numpy)}) run at "
                   f"{speeds} of eager's speed compiled.")
    return "\n".join(out)


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
    """The four ways of running the transformer per batch; speedup against eager with its
    fast path, the way the benchmark runs it."""
    head = ("Batch · variant", "Compile s", "Median ms", "IQR ms", "Speedup", "rel err")
    return render.markdown_table(head, (
        (f"{r['batch_size']} · {r['variant']}", render.num(r["compile_s"], ".1f"),
         format(r["latency_ms"]["median"], ".3g"), format(r["latency_ms"]["iqr"], ".2g"),
         f"{r['speedup']:.2f}x", f"{r['rel_err']:.1e}") for r in doc["rows"]))


def fastpath_findings(doc: dict[str, Any]) -> str:
    """The comparisons the page draws, computed from the recorded rows, one line per batch."""
    out = []
    v = fastpath.VARIANTS
    for bs in dict.fromkeys(r["batch_size"] for r in doc["rows"]):
        ms = {r["variant"]: r["latency_ms"]["median"] for r in doc["rows"]
              if r["batch_size"] == bs}
        eager, comp, comp_off = ms[v[0]], ms[v[2]], ms[v[3]]
        fastest = min(ms, key=ms.get)
        out.append(f"- Batch {bs}: compiled with the fast path takes {comp / eager:.2f} of "
                   f"eager's time; compiled without it takes {comp_off / eager:.2f} of eager's "
                   f"time and {comp_off / comp:.2f} of the time compiled with it. "
                   f"Fastest: *{fastest}*.")
    return "\n".join(out)


def fastpath_spread(doc: dict[str, Any]) -> str:
    """Per batch, how far apart the variants' medians are against the widest IQR among them:
    a difference smaller than the spread is one the run cannot rank."""
    out = []
    rounds = doc["provenance"].get("settings", {}).get("rounds")
    for bs in dict.fromkeys(r["batch_size"] for r in doc["rows"]):
        rows = [r for r in doc["rows"] if r["batch_size"] == bs]
        medians = [r["latency_ms"]["median"] for r in rows]
        span = max(medians) - min(medians)
        widest = max(rows, key=lambda r: r["latency_ms"]["iqr"])
        iqr = widest["latency_ms"]["iqr"]
        over = f" over {rounds} rounds" if rounds else ""
        close = span < iqr
        out.append(f"- Batch {bs}: the {len(rows)} medians lie within {span:.3g} ms of each "
                   f"other, {'less' if close else 'more'} than the widest interquartile "
                   f"range{over} ({iqr:.3g} ms, *{widest['variant']}*)"
                   + (": the run cannot tell these variants apart." if close else "."))
    return "\n".join(out)


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
    """The findings, then per case the lines of ``corpus.py`` each explainer names (✓ where they
    are the logged ones), then where each case comes from."""
    n = len(doc["rows"])
    return "\n\n".join([
        agreement_findings(doc),
        render.details(f"The {n} cases, line by line", agreement_lines(doc)),
        render.details("Where each case comes from", agreement_sources(doc))])


def agreement_lines(doc: dict[str, Any]) -> str:
    head = ("Case", "Logged", "snippets", "torch")
    return render.markdown_table(head, (
        (f"`{r['case']}`", ", ".join(map(str, r["logged"])) or "none",
         _lines(r["explain"], r["agrees"]), _lines(r["torch_explain"], r["torch_agrees"]))
        for r in doc["rows"]), left=1)


def agreement_sources(doc: dict[str, Any]) -> str:
    """Where each case comes from, as links into PyTorch's repository."""
    base = "https://github.com/pytorch/pytorch/blob/main/"
    head = ("Case", "After")
    rows = []
    for r in doc["rows"]:
        path, _, section = r["source"].partition(": ")
        rows.append((f"`{r['case']}`", f"[{path.rsplit('/', 1)[-1]}]({base}{path}): {section}"))
    return render.markdown_table(head, rows, left=2)


def agreement_findings(doc: dict[str, Any]) -> str:
    rows = doc["rows"]
    mine = sum(r["agrees"] for r in rows)
    theirs = sum(r["torch_agrees"] for r in rows)
    missed = sum(bool(set(r["logged"]) - set(r["torch_explain"] or [])) for r in rows)
    invented = sum(bool(set(r["torch_explain"] or []) - set(r["logged"])) for r in rows)
    invents = (f"names a line with no record in {invented}" if invented
               else "names no line without a record")
    return (f"Of {len(rows)} cases, `snippets.explain` names exactly the logged lines in {mine}; "
            f"`torch._dynamo.explain` in {theirs}: it misses a logged line in {missed} and "
            f"{invents}.")
