"""The dynamic-shapes page's tables, drawn from results documents."""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.dynamic import recompiles


def _shapes(row: dict[str, Any]) -> str:
    return " ".join(f"{b}×{s}" for b, s in row["compiled_at"]) or "–"


SHAPES, EAGER_AFTER = "Compiled at (batch×seq)", "New shapes run eager"


def counts(doc: dict[str, Any]) -> str:
    """Compiles per strategy, counted with Dynamo alone."""
    head = ("Strategy", "Compiles", SHAPES, EAGER_AFTER)
    table = render.markdown_table(head, ((r["strategy"], r["compiles"], _shapes(r),
                                          r["eager_after_limit"]) for r in doc["rows"]),
                                  align="lrlr")
    return table + f"\n\n`torch._dynamo.config.{doc['limit_name']} = {doc['limit']}`"


def stalls(doc: dict[str, Any]) -> str:
    """Compiles and the stalls they cost per strategy; the errors met in a table of their own."""
    head = ("Strategy", "Compiles", "Stall total s", "Worst stall s", EAGER_AFTER, SHAPES)
    table = render.markdown_table(head, (
        (r["strategy"], r["compiles"], f"{r['stall_total_ms'] / 1e3:.2f}",
         f"{r['stall_max_ms'] / 1e3:.2f}", r["eager_after_limit"], _shapes(r))
        for r in doc["rows"]), left_last=True)
    errors = [(f"`{r['strategy']}`", e) for r in doc["rows"] for e in r["errors"]]
    return table + ("\n\n" + render.markdown_table(("Strategy", "Error met on the way"), errors,
                                                     left=2)
                    if errors else "")


def steady(doc: dict[str, Any]) -> str:
    """Dynamic against specialized kernels at one shape, after warm-up."""
    head = ("Kernel", "Shape", "Median ms", "IQR ms", "Speedup over eager")
    return render.markdown_table(head, (
        (r["variant"], f"{r['batch']}×{r['seq']}", render.plain(r["latency_ms"]["median"], ".3g"),
         render.plain(r["latency_ms"]["iqr"], ".2g"), f"{r['speedup']:.2f}x") for r in doc["steady"]),
        left=2)


def log(text: str) -> str:
    return f"```console\n$ {recompiles.LOG_COMMAND}\n{text}\n```"


def stance(text: str) -> str:
    return f"```text\n{text}\n```"
