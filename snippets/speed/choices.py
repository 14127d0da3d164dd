"""What autotuning measured (``snippets.speed.autotune``), per autotuned rung: the operators it
tuned, how often it chose a template, and whether the profiler ranks the two as its timer did."""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Any

from snippets.core import render


def _geomean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _both_profiled(op: dict[str, Any]) -> bool:
    """Whether the profiler re-timed both candidates: without ``retimed_by``, a library call's
    kernel_ms is the autotuner's timer read a second time."""
    return (bool(op["library"]["kernel_ms"] and op["template"]["kernel_ms"])
            and op.get("retimed_by") == "profiler")


@dataclass(frozen=True)
class Choices:
    """What a row's autotuning records add up to. Ratios are library over template (above 1: the
    template is faster), by the timer over ``both`` operators and by the profiler over the
    ``retimed`` ones; ``reversed``: template chosen, library faster by the profiler. ``launch``:
    the template's timer over profiler time, over ``launch_of`` operators. ``chosen_us`` and
    ``library_us`` per call where the profiler re-timed every operator; ``uncaptured``: a
    graph-timed rung's candidates that failed in capture."""

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
    """What a row's autotuning records add up to; None where it holds none."""
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
    """Per autotuned rung: templates chosen, library over template by timer and profiler."""
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

