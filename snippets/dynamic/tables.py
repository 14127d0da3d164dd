"""The dynamic-shapes page's tables, drawn from results documents; nothing measures."""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.dynamic import recompiles


def _shapes(row: dict[str, Any]) -> str:
    return " ".join(f"{b}×{s}" for b, s in row["compiled_at"]) or "–"


def counts(doc: dict[str, Any]) -> str:
    """Compiles per strategy, counted with Dynamo alone."""
    head = ("Strategy", "Compiles", "Compiled at (batch×seq)", "New shapes run eager")
    table = render.markdown_table(head, ((r["strategy"], r["compiles"], _shapes(r),
                                          r["eager_after_limit"]) for r in doc["rows"]),
                                  align="lrlr")
    return table + (f"\n\nRecompile limit: `torch._dynamo.config.{doc['limit_name']}`"
                    f" = {doc['limit']} on this torch.")


def stalls(doc: dict[str, Any]) -> str:
    """Compiles and the stalls they cost per strategy, over the whole schedule; the errors a
    strategy met are listed under the table, where their text has room."""
    head = ("Strategy", "Compiles", "Stall total s", "Worst stall s", "New shapes run eager",
            "Compiled at (batch×seq)")
    table = render.markdown_table(head, (
        (r["strategy"], r["compiles"], f"{r['stall_total_ms'] / 1e3:.2f}",
         f"{r['stall_max_ms'] / 1e3:.2f}", r["eager_after_limit"], _shapes(r))
        for r in doc["rows"]), left_last=True)
    errors = [f"- `{r['strategy']}`: {render.cell(e)}" for r in doc["rows"] for e in r["errors"]]
    return table + ("\n\nErrors met on the way:\n\n" + "\n".join(errors) if errors else "")


def steady(doc: dict[str, Any]) -> str:
    """Dynamic against specialized kernels at one shape, after warm-up."""
    head = ("Kernel", "Shape", "Median ms", "IQR ms", "Speedup over eager")
    return render.markdown_table(head, (
        (r["variant"], f"{r['batch']}×{r['seq']}", format(r["latency_ms"]["median"], ".3g"),
         format(r["latency_ms"]["iqr"], ".2g"), f"{r['speedup']:.2f}x") for r in doc["steady"]),
        left=2)


def steady_findings(doc: dict[str, Any]) -> str:
    """What the steady-state rows say, computed from them: each compiled kernel against eager,
    dynamic against specialized, and whether the differences stand out of the rounds' spread."""
    rows = {r["variant"]: r for r in doc["steady"]}
    eager, dyn, static = (rows.get(v) for v in ("eager", "dynamic=True", "dynamic=False"))
    if not (eager and dyn and static):
        return ""
    ms = {v: r["latency_ms"]["median"] for v, r in rows.items()}
    iqr = max(r["latency_ms"]["iqr"] for r in rows.values())
    span = max(ms.values()) - min(ms.values())
    spread = (f"All three medians lie within {span:.2g} ms of each other, less than the widest "
              f"interquartile range ({iqr:.2g} ms): this run cannot rank them."
              if span < iqr else
              f"The medians differ by up to {span:.2g} ms, more than the widest interquartile "
              f"range ({iqr:.2g} ms).")
    ratio = ms["dynamic=True"] / ms["dynamic=False"]
    return "\n".join([
        f"- Eager takes {ms['eager']:.3g} ms a call at {eager['batch']}×{eager['seq']}. The "
        f"specialized kernel runs at {static['speedup']:.2f}x of eager's speed, the dynamic one "
        f"at {dyn['speedup']:.2f}x; the dynamic one takes {ratio:.2f} of the specialized "
        "one's time.",
        f"- {spread}"])


def log(text: str) -> str:
    return f"```console\n$ {recompiles.LOG_COMMAND}\n{text}\n```"


def stance(text: str) -> str:
    return f"```text\n{text}\n```"
