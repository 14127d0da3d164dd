"""Graph breaks: a version-proof view of ``torch._dynamo.explain``.

``explain`` returns the number of graphs Dynamo cut a function into and why it cut it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class BreakReason:
    reason: str
    location: str  # "file.py:line in function", or "" where the version does not say


@dataclass(frozen=True)
class Explanation:
    graph_count: int
    graph_break_count: int
    break_reasons: tuple[BreakReason, ...]


def _location(reason: object) -> str:
    stack = getattr(reason, "user_stack", None) or []
    if not stack:
        return ""
    frame = stack[-1]
    return f"{frame.filename}:{frame.lineno} in {frame.name}"


def explain(fn: Callable[..., object], *args: object) -> Explanation:
    """Trace ``fn(*args)`` with Dynamo and report its graphs and breaks; compiles nothing."""
    torch._dynamo.reset()
    out = torch._dynamo.explain(fn)(*args)
    reasons = tuple(
        BreakReason(reason=str(getattr(r, "reason", r)).strip(), location=_location(r))
        for r in getattr(out, "break_reasons", [])
    )
    torch._dynamo.reset()
    return Explanation(out.graph_count, out.graph_break_count, reasons)
