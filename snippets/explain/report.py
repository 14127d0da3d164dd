"""What ``python -m snippets.explain`` prints for a user's function: its words, held in one
table."""

from __future__ import annotations

import enum
from types import MappingProxyType
from typing import Any


class Eager(str, enum.Enum):
    """What Dynamo ran eagerly after a break it could not resume from (its records say which)."""

    FUNCTION = "function"  # the whole function: "Skipping the function"
    REST = "rest"  # the rest of the function after the break: "skipping the rest"


SAY = MappingProxyType({
    # the text report
    "graphs": "graphs: {n}",
    "breaks": "graph breaks: {n}",
    "reason": "  {i}. {reason}",
    "at": "     at {location}",
    "times": " (Dynamo logged it {n} times)",
    "inside": "     (the trace broke inside {where}, which this line calls)",
    "note": "     {note}",
    "hint": "     hint: {hint}",
    # the note on a break Dynamo could not resume from
    "skipped": "Dynamo could not resume after this break{blocker}, and ran {what} eagerly",
    "blocker": " inside a {block} at line {line}",
    Eager.FUNCTION: "all of {function}",
    Eager.REST: "the rest of {function}",
    # the factory's mistakes, one line each
    "factory failed": "{spec}() failed: {error} ({where})",
    "not a pair": "{spec}() must return (callable_or_module, example_args_tuple): {problem}",
    "not a tuple": "it returned a {type}",
    "items": "it returned a tuple of {n} items",
    "not callable": "the first item, of type {type}, cannot be called",
    "args": "the example args are a {type}, not a tuple (or a dict of keywords)",
    "one input": " (write (x,) for one input)",
})


def skipped(r: Any) -> str:  # an explain.BreakReason: the package imports this module
    """What Dynamo ran eagerly after this break, and what kept it from resuming; "" where it
    resumed."""
    if r.eager is None:
        return ""
    blocker = SAY["blocker"].format(block=r.blocker.block.value, line=r.blocker.line) \
        if r.blocker else ""
    return SAY["skipped"].format(blocker=blocker, what=SAY[r.eager].format(function=r.function))


def text(exp: Any) -> str:  # an explain.Explanation
    lines = [SAY["graphs"].format(n=exp.graph_count),
             SAY["breaks"].format(n=exp.graph_break_count)]
    for i, r in enumerate(exp.break_reasons, 1):
        lines.append(SAY["reason"].format(i=i, reason=r.reason))
        if r.location:
            again = SAY["times"].format(n=r.times) if r.times > 1 else ""
            lines.append(SAY["at"].format(location=r.location) + again)
        if r.inside:
            lines.append(SAY["inside"].format(where=r.inside))
        if r.eager is not None:
            lines.append(SAY["note"].format(note=skipped(r)))
        if r.hint:
            lines.append(SAY["hint"].format(hint=r.hint))
    return "\n".join(lines)
