"""Graph breaks: every break Dynamo logs, at the line of user code it names, in plain words."""

from __future__ import annotations

import contextlib
import enum
import io
import logging
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from snippets.core import torch_logs
from snippets.explain import reasons, records


class Eager(str, enum.Enum):
    """What Dynamo ran eagerly after a break it could not resume from (its records say which)."""

    FUNCTION = "function"  # the whole function: "Skipping the function"
    REST = "rest"  # the rest of the function after the break: "skipping the rest"


_RAN = {Eager.FUNCTION: "all of", Eager.REST: "the rest of"}


@dataclass(frozen=True)
class BreakReason:
    reason: str  # why, in plain words
    location: str  # "file.py:line in function" of the user code, or "" where none is known
    hint: str = ""  # what Dynamo suggests, where it suggests more than "report an issue"
    times: int = 1  # records Dynamo logged at this line (a nested break is traced again per level)
    inside: str = ""  # where the log says the trace broke, when that is in torch or the stdlib
    kind: str = ""  # Dynamo's own name for the type of break ("Failed to trace builtin operator")
    function: str = ""  # the user's function the line is in (never a resume function's name)
    eager: Eager | None = None  # what Dynamo ran eagerly after a break it did not resume
    blocker: reasons.Blocker | None = None  # the loop, with or try that kept it from resuming

    @property
    def skipped(self) -> str:
        """A label for what Dynamo ran eagerly after this break, and the block that kept it from
        resuming (the graph-breaks page says why); "" where it resumed."""
        if self.eager is None:
            return ""
        at = f" ({self.blocker.block.value}, line {self.blocker.line})" if self.blocker else ""
        return f"not resumed{at}: ran {_RAN[self.eager]} {self.function} eagerly"


@dataclass(frozen=True)
class Explanation:
    graph_count: int
    graph_break_count: int
    break_reasons: tuple[BreakReason, ...]
    ops_per_graph: tuple[tuple[str, ...], ...] = ()  # the call targets in each graph, in order

    def as_dict(self) -> dict[str, Any]:
        return {"graph_count": self.graph_count, "graph_break_count": self.graph_break_count,
                "break_reasons": [{"reason": r.reason, "location": r.location, "hint": r.hint,
                                   "times": r.times, "inside": r.inside, "skipped": r.skipped,
                                   "kind": r.kind}
                                  for r in self.break_reasons]}


def where(filename: str, lineno: int | None, name: str) -> str:
    """``file.py:line in name``, the file relative to the repository or site-packages."""
    return f"{torch_logs.clean_path(filename)}:{lineno} in {name}"


def graph_ops(gm: torch.fx.GraphModule) -> tuple[str, ...]:
    """The operations a graph calls, by name, in order."""
    def name(node: torch.fx.Node) -> str:
        target = node.target
        return target if isinstance(target, str) else getattr(target, "__name__", str(target))

    return tuple(name(n) for n in gm.graph.nodes
                 if n.op in ("call_function", "call_method", "call_module"))


def reasons_of(logged: list[records.Record]) -> tuple[BreakReason, ...]:
    """One reason per line of user code, in the order Dynamo first broke there."""
    by_line: dict[tuple[str, int], list[records.Record]] = {}
    for record in logged:
        frame = record.user_frame
        by_line.setdefault((frame.file, frame.line), []).append(record)
    out = []
    for (file, line), group in by_line.items():
        # The record Dynamo wrote at this line itself, with its stack, says most.
        first = min(group, key=lambda r: (not r.in_user_code, not r.stack))
        around = reasons.enclosing(file, line, fallback=first.user_frame.name)
        said = reasons.plain(first.reason, reasons.source_line(file, line))
        # Where Dynamo ran code eagerly after this break: what, and what kept it from picking
        # the trace up again.
        skipped = {r.skipped for r in group} - {""}
        eager = (None if not skipped else Eager.FUNCTION if "function" in skipped
                 else Eager.REST)
        inside = "" if first.in_user_code else torch_logs.clean_path(f"{first.file}:{first.line}")
        out.append(BreakReason(torch_logs.clean_path(said.reason),
                               where(file, line, around.function),
                               torch_logs.clean_path(said.hint), len(group), inside, said.kind,
                               around.function, eager, around.blocker if eager else None))
    return tuple(out)


# --8<-- [start:explain]
from collections.abc import Callable

import torch

from snippets.explain import Explanation, graph_ops, reasons_of, records


def explain(fn: Callable[..., object], *args: object,
            **kwargs: object) -> Explanation:
    """Run ``fn(*args, **kwargs)`` under Dynamo with a backend that only
    counts graphs, and report each break Dynamo logged, once per line of
    user code.

    The breaks are Dynamo's own ``graph_breaks`` records, the lines
    ``TORCH_LOGS=graph_breaks`` prints, so none is invented and none is
    lost: a break before any graph, a break in a function Dynamo then
    skipped, a ``print`` as the last line. ``torch._dynamo.explain``
    counts ``graphs - 1`` instead, which misses some.
    """
    graphs: list[torch.fx.GraphModule] = []

    def count_graphs(gm, example_inputs):
        graphs.append(gm)
        return gm.forward  # run the graph as traced: nothing is compiled

    torch._dynamo.reset()
    try:
        with records.catching() as logged:
            torch.compile(fn, backend=count_graphs)(*args, **kwargs)
    finally:
        torch._dynamo.reset()
    found = reasons_of(logged)
    ops = tuple(graph_ops(g) for g in graphs)
    return Explanation(len(graphs), len(found), found, ops)
# --8<-- [end:explain]


def explain_quietly(fn: Callable[..., object], *args: object, **kwargs: object) -> Explanation:
    """``explain`` with the traced code's prints and Dynamo's warnings kept off the page (and out
    of a test run that turns warnings into errors, which would change what Dynamo traces)."""
    dynamo_log = logging.getLogger("torch._dynamo")
    level = dynamo_log.level
    dynamo_log.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad(), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return explain(fn, *args, **kwargs)
    finally:
        dynamo_log.setLevel(level)


def text_report(exp: Explanation) -> str:
    """The plain-text report ``python -m snippets.explain`` prints: labels, the page explains."""
    lines = [f"graphs: {exp.graph_count}", f"graph breaks: {exp.graph_break_count}"]
    for i, r in enumerate(exp.break_reasons, 1):
        lines.append(f"  {i}. {r.reason}")
        if r.location:
            lines.append(f"     at {r.location}" + (f" (logged {r.times}x)" if r.times > 1 else ""))
        lines += [f"     {label}{text}" for label, text in (
            ("broke inside ", r.inside), ("", r.skipped), ("hint: ", r.hint)) if text]
    return "\n".join(lines)
