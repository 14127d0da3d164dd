"""The cross-check's table, for the noise page: the harness's median beside
``torch.utils.benchmark.Timer``'s and a wall clock's, per row. Rendering only:
``snippets.bench.crosscheck`` measures, ``snippets.bench.crosscheck_findings`` says what the rows
show.
"""

from __future__ import annotations

from typing import Any

from snippets.core import render


def crosscheck(doc: dict[str, Any]) -> str:
    """The harness's median beside torch.utils.benchmark.Timer's and a wall clock's, per row; the
    Timer held to the harness's block length where the run measured it."""
    from snippets.bench import crosscheck as cc

    checked = [r for r in doc["rows"] if cc.ratios(r)]
    # The Timer held to the harness's blocks, then also given its threads: columns only where
    # the run measured them.
    extra = [(k, name) for k, name in (("timer_harness_blocks_ms", "Timer, long blocks ms"),
                                       ("timer_harness_threads_ms", "Timer, + threads ms"))
             if any(r["crosscheck"].get(k) for r in checked)]
    # Milliseconds only, so that the table fits the page: the findings beside it give the ratios.
    head = ("Model · batch · mode", "Harness ms", "Timer ms", *(name for _, name in extra),
            "Wall ms")
    rows = []
    for r in checked:
        rows.append((f"{r['model']} · {r['batch_size']} · {r['mode']}",
                     render.ms(r["latency_ms"]["median"]),
                     render.ms(r["crosscheck"]["timer_ms"]["median"]),
                     *(render.ms((r["crosscheck"].get(k) or {}).get("median"))
                       for k, _ in extra),
                     render.ms(r["crosscheck"]["wall_ms"]["median"])))
    return render.markdown_table(head, rows)


def report(doc: dict[str, Any]) -> str:
    """The page's table of a cross-check run (its findings are ``crosscheck_findings.of``)."""
    return crosscheck(doc)
