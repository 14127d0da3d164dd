"""The zoo page's tables, drawn through its findings (``snippets.zoo.findings``)."""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.core import rows as typed
from snippets.zoo import findings
from snippets.zoo.findings import Cell
from snippets.zoo.outliers import CUDA_GRAPH_MODES, Cause, Outlier

# Where the guide treats each cause of a row that did not pay, as served from the zoo page (exec
# output is HTML by the time MkDocs sees it: it rewrites no link in it).
TREATED = {
    Cause.FAILS: "../debugging/",
    Cause.BREAKS: "../graph-breaks/",
    Cause.RECOMPILES: "../dynamic-shapes/",
    Cause.NO_CUDA_GRAPHS: "../production/#cuda-graphs-what-goes-wrong",
    Cause.HOST_BOUND: "../speed/",
    Cause.KERNELS: "../debugging/",  # a profile says which kernel loses
}


def _cell(cell: Cell | None) -> str:
    """A geometric mean with the range under it: ``1.73x`` over ``0.99–3.18``."""
    if cell is None:
        return "–"
    low, high = cell.span.low, cell.span.high
    return f"**{cell.geomean:.2f}x**<br><small>{low:.2f}–{high:.2f}</small>"


def _head(modes: tuple[str, ...], batches: tuple[int, ...]) -> list[str]:
    # the mode over its batch size: "reduce-overhead · 32" in one line is wider than its cells
    return [f"{m}<br>batch {b}" for m in modes for b in batches]


def families(doc: dict[str, Any]) -> str:
    """A row per family and one for the zoo: what passed, the speedups, the compile time."""
    z = findings.of(doc)
    body = []
    for f in z.families:
        body.append([f.name, f"{f.passed} of {len(f.models)}",
                     *(_cell(f.cell(m, b)) for m in z.modes for b in z.batches),
                     render.num(f.compile_median, ".0f")])
    body.append(["**all**", f"{z.passed} of {z.models}",
                 *(_cell(z.cell(m, b)) for m in z.modes for b in z.batches),
                 render.num(z.compile_median, ".0f")])
    head = ["Family", "Passed", *_head(z.modes, z.batches), "Compile s"]
    return render.markdown_table(head, body)  # its cells are explained on the page, docs/zoo.md


def _speedup(row: dict[str, Any] | None) -> str:
    if row is None:
        return "–"
    if row["status"] not in typed.TIMED:
        return row["status"]
    return render.speedup(row)


def models(doc: dict[str, Any]) -> str:
    """Every model and batch size, in a block that opens."""
    z = findings.of(doc)
    rows = {(r["model"], r["batch_size"], r["mode"]): r for r in doc["rows"]}
    groups = list(dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]))
    body = []
    for model, bs in groups:
        eager = rows.get((model, bs, "eager"))
        compiled = [rows.get((model, bs, m)) for m in z.modes]
        compile_s = "/".join(render.num(r and r.get("compile_s"), ".0f") for r in compiled)
        breaks = eager and eager.get("graph_breaks")
        body.append([f"{model} · {bs}", (eager or {}).get("family", ""),
                     render.ms(eager and eager["latency_ms"] and eager["latency_ms"]["median"]),
                     *(_speedup(r) for r in compiled), compile_s,
                     "–" if breaks is None else breaks])
    head = ["Model · batch", "Family", "Eager ms", *(f"`{m}`" for m in z.modes),
            "Compile s", "Breaks"]
    return render.details(f"All {z.models} models",
                          render.markdown_table(head, body, left=2))


def _evidence(o: Outlier) -> str:
    if o.cause is Cause.FAILS:
        return f"{o.status}: {o.message}"
    parts = [f"{o.graph_breaks or 0} breaks", f"{o.recompiles or 0} recompiles"]
    if o.mode in CUDA_GRAPH_MODES:
        parts.append(f"{o.cudagraph_skips or 0} CUDA-graph skips")
    elif o.cuda_graph_speedup is not None:
        parts.append(f"CUDA graphs: {o.cuda_graph_speedup:.2f}x")
    return ", ".join(parts)


def outliers(doc: dict[str, Any]) -> str:
    """The rows that did not pay, their evidence, and where the guide treats the cause."""
    z = findings.of(doc)
    if not z.outliers:
        return ""
    body = [[f"{o.model} · {o.batch}", f"`{o.mode}`",
             "–" if o.speedup is None else f"{o.speedup:.2f}x",
             o.verdict.value if o.verdict else o.status, _evidence(o),
             f"[{o.cause.value}]({TREATED[o.cause]})"] for o in z.outliers]
    head = ["Model · batch", "Mode", "Speedup", "Verdict", "Evidence", "Cause"]
    return render.markdown_table(head, body, align="llrlll")


def claims(doc: dict[str, Any]) -> str:
    """The tutorial's typical speedups against the zoo families that stand for its models."""
    z = findings.of(doc)
    body = []
    for c in z.claims:
        measured = "–" if c.cell is None else (
            f"{c.cell.geomean:.2f}x ({c.cell.span.low:.2f}–{c.cell.span.high:.2f})")
        body.append([f"{c.model} · {c.batch}", f"{c.claimed[0]:g}x to {c.claimed[1]:g}x",
                     ", ".join(c.families), measured,
                     f"{c.within} of {c.cell.models if c.cell else 0}", c.verdict.value])
    head = ["Tutorial's row · batch", "Claimed", "Zoo families", f"`{findings.CLAIM_MODE}`",
            "Models within", "Verdict"]
    return render.markdown_table(head, body, align="lrlrrl")


def catalog() -> str:
    """The zoo's models as the catalog builds them: what the page's tables are of. Not measured."""
    from snippets.zoo import catalog as zoo

    body = [[e.name, e.family, e.library, e.input, "yes" if e.cpu else ""] for e in zoo.ZOO]
    return render.markdown_table(["Model", "Family", "Library", "Input", "CPU set"], body,
                                 align="lllll")


def kernels(doc: dict[str, Any]) -> str:
    """Each slower rung's two profiles, longest kernels side by side in µs per call."""
    from snippets.core import columns
    from snippets.zoo import kernels as found

    parts = []
    for loss in found.of(doc).losses:
        busy = "busy GPU time, all kernels"
        rows = [*loss.kernels, found.Kernel(busy, loss.eager_busy_us, loss.compiled_busy_us)]
        us = "Times in µs per call"
        parts.append(f"**{loss.model}, batch {loss.batch}**\n\n" + columns.markdown(
            rows, (columns.Column("Kernel", lambda k, busy=busy: k.name if k.name == busy
                           else f"`{k.name}`", left=True),), (
                columns.number("Eager", lambda k: k.eager_us, ".0f", notes=(us,)),
                columns.number("launches", lambda k: k.eager_launches, ".0f"),
                columns.number("Compiled", lambda k: k.compiled_us, ".0f"),
                columns.number("launches", lambda k: k.compiled_launches, ".0f"))))
    return "\n\n".join(parts)


def missing(doc: dict[str, Any]) -> str:
    """The models the run asked for and has no rows of, with the batch sizes each lacks."""
    lack = findings.of(doc).missing
    return render.markdown_table(("Model", "Batch sizes"), [
        (m, ", ".join(str(b) for n, b in lack if n == m))
        for m in dict.fromkeys(m for m, _ in lack)])
