"""The cross-check's tables, for the noise page: the harness's median beside
``torch.utils.benchmark.Timer``'s and a wall clock's, per row, and each group's ratios."""

from __future__ import annotations

from typing import Any

from snippets.bench import crosscheck_findings
from snippets.core import columns, render
from snippets.core.findings import Span


def crosscheck(doc: dict[str, Any]) -> str:
    """The harness's median beside the other timers', per row (the held Timer where measured)."""
    from snippets.bench import crosscheck as cc

    checked = [r for r in doc["rows"] if cc.ratios(r)]
    # The Timer held to the harness's blocks, then also given its threads: columns only where
    # the run measured them.
    extra = [(k, name) for k, name in (("timer_harness_blocks_ms", "Timer, long blocks"),
                                       ("timer_harness_threads_ms", "Timer, + threads"))
             if any(r["crosscheck"].get(k) for r in checked)]
    # A column per timer, as Compare sets variants side by side; milliseconds only, so that the
    # table fits the page: the findings beside it give the ratios.
    key = (columns.field("Model", "model"), columns.field("Batch", "batch_size"),
           columns.field("Mode", "mode"))
    return columns.markdown(checked, key, (
        columns.ms("Harness", lambda r: r["latency_ms"]["median"]),
        columns.ms("Timer", lambda r: r["crosscheck"]["timer_ms"]["median"]),
        *(columns.ms(name, lambda r, k=k: (r["crosscheck"].get(k) or {}).get("median"))
          for k, name in extra),
        columns.ms("Wall", lambda r: r["crosscheck"]["wall_ms"]["median"])))


def _ends(s: Span | None) -> str:
    """Both ends of a ratio's span, always written ("0.998 to 1.004"), as a cross-check reads."""
    return f"{s.low:.3f} to {s.high:.3f}" if s else "–"


def groups(doc: dict[str, Any]) -> str:
    """Per group of rows, each timer's median over the harness's and the calls per block."""
    found = crosscheck_findings.of(doc)
    named = [(name, g) for name, g in (("CUDA-graph rows", found.graphs),
             ("Other rows" if found.graphs else "Every row", found.others)) if g is not None]
    # one column per group, a row per reading: two groups of ten readings fit the column
    readings = (
        ("Rows", lambda g: str(g.rows)), ("Noisy", lambda g: str(g.noisy)),
        ("Wall ÷ harness", lambda g: _ends(g.wall)), ("Timer ÷ harness", lambda g: _ends(g.timer)),
        ("Held ÷ harness", lambda g: _ends(g.held)),
        ("Timer's block, calls", lambda g: _calls(g.timer_calls)),
        ("Harness's sample, calls", lambda g: _calls(g.harness_calls)),
        ("Threads", lambda g: "/".join(map(str, g.thread_counts)) or "–"),
        ("+ threads ÷ harness", lambda g: _ends(g.threads)))
    body = ((label, *(cell(g) for _, g in named)) for label, cell in readings)
    return render.markdown_table(("Reading", *(name for name, _ in named)), body)


def _calls(span: Any) -> str:
    return render.span((span.low, span.high), "d") if span else "–"


def report(doc: dict[str, Any]) -> str:
    """Every row, then each group's ratios to the harness."""
    return crosscheck(doc) + "\n\n" + groups(doc)
