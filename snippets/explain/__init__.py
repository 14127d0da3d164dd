"""Graph breaks: a version-proof view of ``torch._dynamo.explain``.

``explain(fn, *args)`` returns how many graphs Dynamo cut a function into, how many times it broke
the trace, and each reason with the line of user code it happened at: the same fields, counted the
same way, on every torch from 2.5 on. ``python -m snippets.explain pkg.module:factory`` prints it.
Beside it: ``breaks`` (the page's broken examples and fixes), ``counts`` (their graphs and breaks),
``costs`` (what a break costs in time), ``fastpath`` (the transformer's fused fast path), ``logs``
(the switches that make breaks visible) and ``tables`` (the page's renderings).
"""

from __future__ import annotations

import contextlib
import io
import os
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from snippets.core import models, torch_logs

_TORCH_DIR = os.path.dirname(torch.__file__)


@dataclass(frozen=True)
class BreakReason:
    reason: str  # the first line of Dynamo's message, which names the cause
    location: str  # "file.py:line in function" of the user code, or "" where none is known


@dataclass(frozen=True)
class Explanation:
    graph_count: int
    graph_break_count: int
    break_reasons: tuple[BreakReason, ...]
    ops_per_graph: tuple[tuple[str, ...], ...] = ()  # the call targets in each graph, in order

    def as_dict(self) -> dict[str, Any]:
        return {"graph_count": self.graph_count, "graph_break_count": self.graph_break_count,
                "break_reasons": [{"reason": r.reason, "location": r.location}
                                  for r in self.break_reasons]}


def _reason_line(text: str) -> str:
    """torch 2.5 gives one line ("Tensor.item"); 2.7 on give a title, an explanation and hints."""
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    lines = [ln.removeprefix("Graph Break Reason:").strip() for ln in lines] or [""]
    if lines[0].startswith("Failed to handle graph break gracefully") and len(lines) > 1:
        return f"{lines[1]} (Dynamo skipped the whole function)"
    return lines[0]


def _where(filename: str, lineno: int | None, name: str) -> str:
    return f"{torch_logs.clean_path(filename)}:{lineno} in {name}"


def _location(reason: object) -> str:
    """The innermost frame outside torch itself: where in the user's code the break happened."""
    stack = list(getattr(reason, "user_stack", None) or [])
    user = [f for f in stack if not f.filename.startswith(_TORCH_DIR)] or stack
    return _where(user[-1].filename, user[-1].lineno, user[-1].name) if user else ""


def _ops(gm: torch.fx.GraphModule) -> tuple[str, ...]:
    def name(node: torch.fx.Node) -> str:
        target = node.target
        return target if isinstance(target, str) else getattr(target, "__name__", str(target))

    return tuple(name(n) for n in gm.graph.nodes
                 if n.op in ("call_function", "call_method", "call_module"))


def _code_of(fn: Callable[..., object]) -> str:
    code = getattr(getattr(fn, "forward", fn), "__code__", None)
    return _where(code.co_filename, code.co_firstlineno, code.co_name) if code else ""


# --8<-- [start:explain]
def explain(fn: Callable[..., object], *args: object) -> Explanation:
    """Trace ``fn(*args)`` with Dynamo and report its graphs and breaks;
    compiles nothing.

    Counted the same on every version: a break is each place Dynamo stopped
    the trace, so a ``print`` as the last line counts although no second graph
    follows it (``explain`` itself reports ``graph_count - 1``, which misses
    it), and a function Dynamo gave up on entirely counts one break with no
    graph at all (``explain`` reports -1 there on 2.14).
    """
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    before = Counter(counters["unimplemented"])
    out = torch._dynamo.explain(fn)(*args)
    graphs = list(getattr(out, "graphs", None) or [])
    graph_count = int(getattr(out, "graph_count", len(graphs)))
    new = [k for k, n in counters["unimplemented"].items() if n > before[k]]
    reasons = [BreakReason(_reason_line(getattr(r, "reason", r)), _location(r))
               for r in getattr(out, "break_reasons", None) or []]
    # Some breaks carry only an internal tag ("step_unsupported"); the message
    # that explains it was counted when Dynamo gave up on the construct.
    reasons = [BreakReason(_reason_line(new[0]), r.location)
               if " " not in r.reason and new else r
               for r in reasons]
    skipped = new
    if graph_count == 0 and skipped:
        why = _reason_line(skipped[-1])
        reasons.append(BreakReason(f"{why} (Dynamo skipped the whole function)",
                                   _code_of(fn)))
    torch._dynamo.reset()
    return Explanation(graph_count, max(graph_count - 1, len(reasons)),
                       tuple(reasons), tuple(_ops(g) for g in graphs))
# --8<-- [end:explain]


def explain_quietly(fn: Callable[..., object], *args: object) -> Explanation:
    """``explain`` with the traced code's prints and Dynamo's warnings kept off the page."""
    import logging

    dynamo_log = logging.getLogger("torch._dynamo")
    level = dynamo_log.level
    dynamo_log.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            return explain(fn, *args)
    finally:
        dynamo_log.setLevel(level)


def text_report(exp: Explanation) -> str:
    lines = [f"graphs: {exp.graph_count}", f"graph breaks: {exp.graph_break_count}"]
    for i, r in enumerate(exp.break_reasons, 1):
        lines.append(f"  {i}. {r.reason}")
        if r.location:
            lines.append(f"     at {r.location}")
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
    if not (isinstance(made, tuple) and len(made) == 2 and callable(made[0])
            and isinstance(made[1], tuple)):
        raise models.SpecError(f"{spec}() must return (callable_or_module, example_args_tuple), "
                               f"got {type(made).__name__}")
    return made

