"""The findings of "How fast can it go" as tables, one row per ladder, step or goal; the page
says what the columns mean."""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.core.findings import Span
from snippets.speed import choices, findings, goals
from snippets.speed.autotune_findings import autotuned as _autotuned
from snippets.speed.evidence import Kernel


def _span(s: Span | None, spec: str) -> str:
    """A span as ``low–high``, or one value where both read the same."""
    if s is None:
        return "–"
    lo, hi = format(s.low, spec), format(s.high, spec)
    return lo if lo == hi else f"{lo}–{hi}"


def _key(f: Any, *more: str) -> str:
    """A finding's ladder as the tables name it: ``resnet50 · 32``, then ``more``."""
    return " · ".join((f.model, str(f.batch), *more))


def _code(name: str | None) -> str:
    return f"`{name}`" if name else "–"


def _pair(mine: float | None, theirs: float | None, spec: str) -> str:
    return f"{render.num(mine, spec)}/{render.num(theirs, spec)}"  # narrow: numbers never wrap


def _titled(parts: list[tuple[str, str]]) -> str:
    return "\n\n".join(f"**{t}**\n\n{b}" if t else b for t, b in parts if b)


def _ladders(f: findings.Ladders) -> str:
    return render.markdown_table(
        ("Ladder", "Fastest", "× eager", "Best step", "× below", "Rung below", "Past noise",
         "IQR %", "% of roofline", "Floor ms", "Bound"),
        ((_key(x), _in(_code(x.mode), x.command),
          render.num(x.speedup, ".2f"),
          _in(_code(x.step and x.step.mode), x.step.command if x.step else 1),
          render.num(x.step and x.step.speedup, ".2f"),
          _code(x.step and x.step.below),
          ("yes" if x.step.verdict is findings.Step.BUYS else "no") if x.step else "–",
          " / ".join(f"{v:.1f}" for v in x.step.spreads) if x.step and x.step.spreads else "–",
          render.num(x.roof and x.roof.of_roofline_pct, ".0f"),
          render.num(x.roof and x.roof.bound_ms, ".3g"), x.roof.bound if x.roof else "–")
         for x in f.ladders), left=2)


def _in(cell: str, command: int) -> str:
    """A rung's cell, with the command that timed it where that is not the climbed ladder's."""
    # On a line of its own: the rung's name keeps the column's width, so the table still fits.
    return f"{cell}<br>command {command}" if command > 1 else cell


def _profiles(f: findings.Ladders) -> str:
    rows = []
    for x in f.ladders:
        k: Kernel | None = (x.eager.top if x.eager else x.frozen.kernel if x.frozen else None)
        if k is None:
            continue
        shows = ("fast path" if x.eager.fastpath else "") if x.eager else x.frozen.packed.value
        rows.append((_key(x), _in(_code(x.mode), x.command), _code(k.name),
                     f"{k.share_pct:.0f}", f"{k.count_per_call:.0f}", shows or "–",
                     _span(x.eager and x.eager.compiled, ".2f"),
                     ("yes" if x.eager.bit_exact else "no") if x.eager else "–"))
    return render.markdown_table(("Ladder", "Fastest", "Operator", "% of wall", "Calls a call",
                                  "Shows", "Compiled × eager", "Bit for bit"),
                                 rows, left=3) if rows else ""


def _slower(f: findings.Ladders) -> str:
    def both(s: Any, field: str, spec: str) -> str:
        return _pair(getattr(s.mine, field), getattr(s.theirs, field), spec) if s.mine else "–"

    return render.markdown_table(
        ("Ladder · rung", "× below", "Rung below", "Profiled", "Kernels a call", "Busy µs",
         "Idle %"),
        ((_key(s, _code(s.mode)), f"{s.ratio:.2f}", _code(s.below),
          s.profiled.value, both(s, "kernels", ".0f"), both(s, "busy_us", ".1f"),
          both(s, "idle_pct", ".0f")) for s in f.slower), left=1) if f.slower else ""


def _compiles(f: findings.Ladders) -> str:
    return render.markdown_table(("Ladder", "First rung", "Compile s", "Later rungs s"), (
        (_key(c), _code(c.mode), f"{c.first_s:.1f}", _span(c.later_s, ".1f"))
        for c in f.first_compiles), left=2) if f.first_compiles else ""


def ladder_findings(doc: dict[str, Any]) -> str:
    """Each ladder's fastest rung and best step, its profile, the slower steps, the first
    compiles."""
    f = findings.ladders(doc)
    return _titled([("", _ladders(f)), ("Profile of the fastest rung", _profiles(f)),
                    ("Slower than the rung below", _slower(f)),
                    ("First compiles", _compiles(f))])


def goals_judged(doc: dict[str, Any]) -> str:
    """Each goal's outcome with the fastest rung's figures, then the evidence of each miss."""
    judged = goals.of(doc).goals
    verdicts = render.markdown_table(
        ("Model", "Batch", "Outcome", "Rung", "Median ms", "% of peak", "Over ms", "× goal",
         "Points short"),
        ((j.goal.model, str(j.goal.batch_size), j.outcome.value, _code(j.mode),
          render.num(j.ms, ".3g"),
          render.num(j.pct if j.goal.metric == "pct_of_peak" else None, ".1f"),
          render.num(j.over_ms, ".3g"),
          render.num(j.times, ".2f"), render.num(j.short, ".1f")) for j in judged), left=4)
    why = [(f"{j.goal.model} · {j.goal.batch_size}", render.num(w.idle_pct, ".0f"),
            render.num(w.kernels, ".0f"), _code(w.top), render.num(w.top_pct, ".0f"),
            render.num(w.roof and w.roof.bound_ms, ".3g"), w.roof.bound if w.roof else "–",
            render.num(w.roof and w.roof.of_roofline_pct, ".0f"),
            render.num(w.roof and w.roof.cap_pct, ".0f"))
           for j in judged if (w := j.why) is not None]
    return _titled([("", verdicts), ("Why", render.markdown_table(
        ("Model · batch", "Idle %", "Kernels a call", "Largest kernel", "Its %", "Floor ms",
         "Bound", "Floor / measured %", "Cap % of peak"), why, align="lrrlrrlrr") if why else "")])


def autotuned(doc: dict[str, Any]) -> str:
    """Each autotuned rung against the rung below, the ladders tuned both ways, and coordinate
    descent."""
    f = _autotuned(doc)
    rungs = render.markdown_table(
        ("Ladder · rung", "× below", "Rung below", "Products µs", "Other µs",
         "Chosen µs at tuning", "Library µs at tuning", "Failed in capture"),
        ((_key(t, _code(t.mode)), f"{t.ratio:.2f}", _code(t.below),
          _pair(t.split.matmul_us, t.split.matmul_below_us, ".1f") if t.split else "–",
          _pair(t.split.rest_us, t.split.rest_below_us, ".1f") if t.split else "–",
          render.num(t.choices and t.choices.chosen_us, ".1f"),
          render.num(t.choices and t.choices.library_us, ".1f"),
          # a graph-timed rung's candidates that failed in CUDA-graph capture, and the first error
          f"{t.choices.uncaptured}: {t.choices.uncaptured_first}"
          if t.choices and t.choices.uncaptured else "–") for t in f.rungs), align="lrlrrrrl")
    replayed = render.markdown_table(
        ("Ladder", "Rung below", "Library kept: replays", "timer", "× below: replays", "timer"),
        ((_key(p), _code(p.below), f"{p.graph.library} of {p.graph.ops}",
          f"{p.own.library} of {p.own.ops}", f"{p.graph_ratio:.2f}", f"{p.own_ratio:.2f}")
         for p in f.replayed), left=2) if f.replayed else ""
    descent = render.markdown_table(
        ("Ladder", "× below", "Rung below", "Autotuned rungs × below"),
        ((_key(d), f"{d.ratio:.2f}", _code(d.below),
          "; ".join(f"`{t.mode}` {t.ratio:.2f}" for t in d.tuned) or "–")
         for d in f.descent), left=1) if f.descent else ""
    return _titled([("", rungs), ("Autotuning's measurements", choices.table(doc)),
                    ("Tuned both ways", replayed), ("Coordinate descent", descent)])


def try_first(doc: dict[str, Any]) -> str:
    """The steps in the order they paid (geometric-mean speedup over the rung below)."""
    return render.markdown_table(("Step", "× below, geometric mean", "Ladders"), (
        (_code(p.mode), f"{p.gmean:.2f}", str(p.ladders)) for p in findings.paid(doc)))
