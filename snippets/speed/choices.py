"""The page's reading of what autotuning measured (``snippets.speed.autotune``): per autotuned
rung, how many operators it tuned, how often it chose a generated template over the library
kernel, and whether the profiler's kernel times rank the two the way the autotuner's timer did.

Everything here takes rows of a results document and returns a frozen ``Choices`` or a table;
nothing measures or composes a sentence.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Any

from snippets.core import render


def _geomean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _both_profiled(op: dict[str, Any]) -> bool:
    """Whether both of an operator's reported candidates were re-timed by the profiler: without
    ``retimed_by``, a library call's kernel_ms is the autotuner's timer read a second time."""
    return (bool(op["library"]["kernel_ms"] and op["template"]["kernel_ms"])
            and op.get("retimed_by") == "profiler")


@dataclass(frozen=True)
class Choices:
    """What a row's autotuning records add up to. Ratios are library over template, so above 1
    means the template is faster: by the autotuner's timer (``timer``) over the ``both``
    operators where both kinds ran, and by the profiler (``profiler``) over the ``retimed``
    ones both of whose candidates it re-timed (``_both_profiled``); ``reversed`` counts the
    operators where the autotuner chose the template but the profiler times the library kernel
    faster. ``launch`` is the fastest template's time by the timer over its kernel time by the
    profiler (a template is always re-timed by the profiler), over ``launch_of`` operators: how
    much more than its kernels the timer counts. Where the profiler re-timed every operator,
    ``chosen_us`` and ``library_us`` are its readings of the kernels chosen and of the library's,
    summed per call of the model. ``uncaptured`` counts a graph-timed rung's candidates that
    failed in capture, ``uncaptured_first`` the first one's error, shortened."""

    ops: int
    errors: int
    template: int
    both: int
    retimed: int
    timer: float | None
    profiler: float | None
    reversed: int
    launch: float | None
    launch_of: int
    chosen_us: float | None
    library_us: float | None
    uncaptured: int = 0
    uncaptured_first: str = ""

    @property
    def library(self) -> int:
        """The operators for which autotuning kept the library kernel."""
        return self.ops - self.template


def summary(row: dict[str, Any]) -> Choices | None:
    """What a row's autotuning records add up to; None where the row holds none (a rung that
    does not autotune)."""
    ops = row.get("autotune")
    if ops is None:
        return None
    tuned = [o for o in ops if "error" not in o]
    both = [o for o in tuned if o.get("library") and o.get("template")]
    timed = [o for o in both if _both_profiled(o)]
    kernels = [o["template"] for o in tuned if (o.get("template") or {}).get("kernel_ms")]
    every = bool(timed) and len(timed) == len(tuned)  # the profiler re-timed every operator
    missed = row.get("uncaptured") or {}
    return Choices(
        ops=len(tuned), errors=len(ops) - len(tuned),
        template=sum(o["chosen"] == "template" for o in tuned),
        both=len(both), retimed=len(timed),
        timer=_geomean([o["library"]["ms"] / o["template"]["ms"] for o in both]),
        profiler=_geomean([o["library"]["kernel_ms"] / o["template"]["kernel_ms"]
                           for o in timed]),
        reversed=sum(o["chosen"] == "template"
                     and o["library"]["kernel_ms"] < o["template"]["kernel_ms"]
                     for o in timed),
        launch=_geomean([t["ms"] / t["kernel_ms"] for t in kernels]),
        launch_of=len(kernels),
        chosen_us=1e3 * sum(o[o["chosen"]]["kernel_ms"] for o in timed) if every else None,
        library_us=1e3 * sum(o["library"]["kernel_ms"] for o in timed) if every else None,
        uncaptured=missed.get("count") or 0,
        # An error message is long: its start is enough to tell one failure from another.
        uncaptured_first=textwrap.shorten((missed.get("first") or [""])[0], 60,
                                          placeholder=" …"))


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
        f"{r['model']} · {r['batch_size']} · {r['mode']}", f"{s.template} of {s.ops}",
        render.num(s.timer, ".2f"), render.num(s.profiler, ".2f"),
        str(s.reversed) if s.retimed else "–", render.num(s.launch, ".2f"))
        for r, s in rows))

