"""The cross-check's table, for the noise page: the harness's median beside
``torch.utils.benchmark.Timer``'s and a wall clock's, per row. Rendering only:
``snippets.bench.crosscheck`` measures, ``snippets.bench.crosscheck_findings`` says what the rows
show.
"""

from __future__ import annotations

from typing import Any

from snippets.core import columns


def crosscheck(doc: dict[str, Any]) -> str:
    """The harness's median beside torch.utils.benchmark.Timer's and a wall clock's, per row; the
    Timer held to the harness's block length where the run measured it."""
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


def report(doc: dict[str, Any]) -> str:
    """The page's table of a cross-check run (its findings are ``crosscheck_findings.of``)."""
    return crosscheck(doc)
