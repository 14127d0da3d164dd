"""The page's reading of what autotuning measured (``snippets.speed.autotune``): per autotuned
rung, how many operators it tuned, how often it chose a generated template over the library
kernel, and whether the profiler's kernel times rank the two the way the autotuner's timer did.

Everything here takes rows of a results document and returns numbers or Markdown; nothing
measures.
"""

from __future__ import annotations

import math
import textwrap
from typing import Any

from snippets.core import render


def _geomean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


# Library calls that Inductor's own re-timing reads from the profiler: those it makes without an
# out= tensor (ExternKernelChoice(..., has_out_variant=False): a convolution). Any other library
# call's kernel_ms, in a record made before the ladder swapped the timer (no ``retimed_by``), is
# the autotuner's timer read a second time.
PROFILED_BY_INDUCTOR = frozenset({"convolution"})


def _both_profiled(op: dict[str, Any]) -> bool:
    """Whether both of an operator's reported candidates were re-timed by the profiler."""
    return (bool(op["library"]["kernel_ms"] and op["template"]["kernel_ms"])
            and (op.get("retimed_by") == "profiler"
                 or op["library"]["name"] in PROFILED_BY_INDUCTOR))


def summary(row: dict[str, Any]) -> dict[str, Any] | None:
    """What a row's autotuning records add up to; None where the row holds none (a rung that
    does not autotune, or one recorded before they were kept). Ratios are library over
    template, so above 1 means the template is faster: by the autotuner's timer (``timer``)
    over the operators where both kinds ran, and by the profiler (``profiler``) over those
    where both were re-timed by it (``_both_profiled``); ``reversed`` counts the operators where the
    autotuner chose the template but the profiler times the library kernel faster. ``launch``
    is the fastest template's time by the timer over its kernel time by the profiler (a
    template is always re-timed by the profiler): how much more than its kernels the timer
    counts."""
    ops = row.get("autotune")
    if ops is None:
        return None
    tuned = [o for o in ops if "error" not in o]
    both = [o for o in tuned if o.get("library") and o.get("template")]
    timed = [o for o in both if _both_profiled(o)]
    kernels = [o["template"] for o in tuned if (o.get("template") or {}).get("kernel_ms")]
    every = bool(timed) and len(timed) == len(tuned)  # the profiler re-timed every operator
    return {
        "ops": len(tuned), "errors": len(ops) - len(tuned),
        "template": sum(o["chosen"] == "template" for o in tuned),
        "both": len(both), "retimed": len(timed),
        "timer": _geomean([o["library"]["ms"] / o["template"]["ms"] for o in both]),
        "profiler": _geomean([o["library"]["kernel_ms"] / o["template"]["kernel_ms"]
                              for o in timed]),
        "reversed": sum(o["chosen"] == "template"
                        and o["library"]["kernel_ms"] < o["template"]["kernel_ms"]
                        for o in timed),
        "launch": _geomean([t["ms"] / t["kernel_ms"] for t in kernels]),
        "launch_of": len(kernels),
        # Per call of the model, where the profiler re-timed every operator: its readings of
        # the kernels chosen and of the library's, summed, to set beside the model's profile.
        "chosen_us": 1e3 * sum(o[o["chosen"]]["kernel_ms"] for o in timed) if every else None,
        "library_us": 1e3 * sum(o["library"]["kernel_ms"] for o in timed) if every else None,
    }


def clause(row: dict[str, Any]) -> str:
    """What a slower autotuned rung's records say of its choices, as a clause of its finding;
    "" where it holds none."""
    s = summary(row)
    if s is None:
        return ""
    if not s["ops"]:
        return ("; autotuning timed no operator in this run: Inductor's cache held every "
                "choice, so the records of what it measured are in the run that filled it")
    line = (f"; autotuning tuned {s['ops']} operators and chose a generated template over the "
            f"library kernel for {s['template']} of them")
    if s["timer"] is not None:
        line += (f"; its timer put the library kernel at {s['timer']:.2f}× the fastest "
                 f"template's time (geometric mean of {s['both']})")
    if s["profiler"] is not None:
        line += (f", the profiler, timing the kernels alone, at {s['profiler']:.2f}× (of the "
                 f"{s['retimed']} re-timed), and for {s['reversed']} of those the template it "
                 "chose runs slower than the library kernel it passed over")
    if s["launch"] is not None:
        line += (f"; the timer read the fastest template at {s['launch']:.2f}× its kernel time "
                 f"by the profiler (geometric mean of {s['launch_of']})")
    missed = row.get("uncaptured") or {}
    if missed.get("count"):  # a graph-timed rung's candidates that failed in capture
        first = textwrap.shorten((missed.get("first") or [""])[0], 60, placeholder=" …")
        line += (f"; {missed['count']} of its candidates failed when captured in a CUDA graph "
                 f"(the first with `{first}`) and were timed from their launch where they ran "
                 "at all")
    return line


def table(doc: dict[str, Any]) -> str:
    """Per autotuned rung: how many of the operators it tuned went to a template, the library
    kernel's time over the template's by the autotuner's timer and by the profiler, and the
    template's time by the timer over its time by the profiler."""
    rows = [(r, s) for r in doc["rows"] if (s := summary(r)) is not None]
    if not rows:
        return ""
    head = ("Model · batch · rung", "Templates chosen", "Library ÷ template: timer",
            "profiler", "Chosen, slower", "Template: timer ÷ profiler")
    return render.markdown_table(head, ((
        f"{r['model']} · {r['batch_size']} · {r['mode']}", f"{s['template']} of {s['ops']}",
        render.num(s["timer"], ".2f"), render.num(s["profiler"], ".2f"),
        str(s["reversed"]) if s["retimed"] else "–", render.num(s["launch"], ".2f"))
        for r, s in rows))

