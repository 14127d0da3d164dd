"""Graph breaks: every break Dynamo logs, at the line of user code it names, in plain words.

``explain(fn, *args)`` runs ``fn`` under Dynamo with a backend that only counts graphs, catches
Dynamo's own graph-break records (``records``) and reports how many graphs it cut the function
into, and each break once per line, with its reason in plain words and Dynamo's hint (``reasons``).
``python -m snippets.explain pkg.module:factory`` prints it. Beside it: ``breaks`` (the page's
broken examples and fixes), ``counts`` (their graphs and breaks), ``corpus`` and ``agreement``
(the explainer held to PyTorch's own graph-break cases), ``costs`` (what a break costs in time),
``fastpath`` (the transformer's fused fast path), ``logs`` (the switches that make breaks
visible) and ``tables`` (the page's renderings).
"""

from __future__ import annotations

import contextlib
import io
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from snippets.core import models, torch_logs
from snippets.explain import reasons, records


@dataclass(frozen=True)
class BreakReason:
    reason: str  # why, in plain words
    location: str  # "file.py:line in function" of the user code, or "" where none is known
    hint: str = ""  # what Dynamo suggests, where it suggests more than "report an issue"
    times: int = 1  # records Dynamo logged at this line (a nested break is traced again per level)
    inside: str = ""  # where the log says the trace broke, when that is in torch or the stdlib
    skipped: str = ""  # what Dynamo ran eagerly after the break, and what kept it from resuming
    kind: str = ""  # Dynamo's own name for the type of break ("Failed to trace builtin operator")


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


def _where(filename: str, lineno: int | None, name: str) -> str:
    return f"{torch_logs.clean_path(filename)}:{lineno} in {name}"


def _ops(gm: torch.fx.GraphModule) -> tuple[str, ...]:
    def name(node: torch.fx.Node) -> str:
        target = node.target
        return target if isinstance(target, str) else getattr(target, "__name__", str(target))

    return tuple(name(n) for n in gm.graph.nodes
                 if n.op in ("call_function", "call_method", "call_module"))


def _reasons(logged: list[records.Record]) -> tuple[BreakReason, ...]:
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
        skipped = {r.skipped for r in group} - {""}
        note = ""
        if skipped:
            # Dynamo ran code eagerly after this break: say what, and what kept it from
            # picking the trace up again.
            what = (f"all of {around.function}" if "function" in skipped
                    else f"the rest of {around.function}")
            why = f" inside {around.blocker}" if around.blocker else ""
            note = f"Dynamo could not resume after this break{why}, and ran {what} eagerly"
        inside = "" if first.in_user_code else torch_logs.clean_path(f"{first.file}:{first.line}")
        out.append(BreakReason(torch_logs.clean_path(said.reason),
                               _where(file, line, around.function),
                               torch_logs.clean_path(said.hint), len(group), inside, note,
                               said.kind))
    return tuple(out)


# --8<-- [start:explain]
def explain(fn: Callable[..., object], *args: object) -> Explanation:
    """Run ``fn(*args)`` under Dynamo with a backend that only counts graphs,
    and report each break Dynamo logged, once per line of user code.

    The breaks are Dynamo's own ``graph_breaks`` records, the lines
    ``TORCH_LOGS=graph_breaks`` prints, so none is invented and none is lost:
    a break before any graph, a break in a function Dynamo then skipped, a
    ``print`` as the last line. ``torch._dynamo.explain`` counts
    ``graphs - 1`` instead, which misses some.
    """
    graphs: list[torch.fx.GraphModule] = []

    def count_graphs(gm, example_inputs):
        graphs.append(gm)
        return gm.forward  # run the graph as traced: nothing is compiled

    torch._dynamo.reset()
    try:
        with records.catching() as logged:
            torch.compile(fn, backend=count_graphs)(*args)
    finally:
        torch._dynamo.reset()
    found = _reasons(logged)
    ops = tuple(_ops(g) for g in graphs)
    return Explanation(len(graphs), len(found), found, ops)
# --8<-- [end:explain]


def explain_quietly(fn: Callable[..., object], *args: object) -> Explanation:
    """``explain`` with the traced code's prints and Dynamo's warnings kept off the page (and out
    of a test run that turns warnings into errors, which would change what Dynamo traces)."""
    import logging
    import warnings

    dynamo_log = logging.getLogger("torch._dynamo")
    level = dynamo_log.level
    dynamo_log.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad(), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return explain(fn, *args)
    finally:
        dynamo_log.setLevel(level)


def text_report(exp: Explanation) -> str:
    lines = [f"graphs: {exp.graph_count}", f"graph breaks: {exp.graph_break_count}"]
    for i, r in enumerate(exp.break_reasons, 1):
        lines.append(f"  {i}. {r.reason}")
        if r.location:
            again = f" (Dynamo logged it {r.times} times)" if r.times > 1 else ""
            lines.append(f"     at {r.location}{again}")
        if r.inside:
            lines.append(f"     (the trace broke inside {r.inside}, which this line calls)")
        if r.skipped:
            lines.append(f"     {r.skipped}")
        if r.hint:
            lines.append(f"     hint: {r.hint}")
    return "\n".join(lines)


def load_target(spec: str) -> tuple[Callable[..., object], tuple[Any, ...]]:
    """Import ``pkg.module:factory`` and call it; raise SpecError with one line on any misuse."""
    factory = models.load_factory(spec)
    try:
        made = factory()
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        raise models.SpecError(f"{spec}() failed: {type(exc).__name__}: {exc} "
                               f"({_where(where.filename, where.lineno, where.name)})") from None
    problem = _malformed(made)
    if problem:
        raise models.SpecError(f"{spec}() must return (callable_or_module, example_args_tuple): "
                               f"{problem}")
    return made


def _malformed(made: object) -> str:
    """What is wrong with a factory's return value, in a few words; "" when nothing is."""
    if not isinstance(made, tuple):
        return f"it returned a {type(made).__name__}"
    if len(made) != 2:
        return f"it returned a tuple of {len(made)} items"
    fn, args = made
    if not callable(fn):
        return f"the first item, of type {type(fn).__name__}, cannot be called"
    if not isinstance(args, tuple):
        one = " (write (x,) for one input)" if not isinstance(args, (list, dict)) else ""
        return f"the example args are a {type(args).__name__}, not a tuple{one}"
    return ""
