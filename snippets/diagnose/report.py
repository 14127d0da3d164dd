"""The diagnosis as a user reads it: the same tables in a terminal (rich) and in Markdown."""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType

from snippets.core import render
from snippets.diagnose.findings import (
    Advice,
    Phase,
    Recommendation,
    RiskKind,
    Section,
    Status,
    as_dict,
)

SAY = MappingProxyType({
    "verdict": "Verdict",
    "finding": "finding", "value": "value",
    "batch": "timed at batch size",
    "advice": "advice", "mode": "mode", "speedup": "speedup over eager",
    "compile": "compile (empty cache)", "calls": "calls to break even", "shapes": "shapes",
    "stalls": "compile stalls, all batch sizes",
    "stalls_of": "default: {default} s; {name}: {remedy} s",
    "risks": "Risks found",
    "code": "Code to paste",
    Phase.BREAKS: "Graph breaks", Phase.RECOMPILES: "Recompiles, batch sizes {schedule}",
    Phase.MODES: "Modes against eager",
    "graphs": "{graphs}, {breaks}",
    "skipped": "skipped: {what}",
    "fault": "fault: {message}",
    "took": "took {seconds:.1f} s",
    "guard": "guard failed ({strategy}): {failure}",
})
GRAPH_BREAKS = "docs/graph-breaks.md"
# Where the guide explains each kind of risk, beside the break fixes below.
RISK_PAGES = {RiskKind.FAST_PATH: "docs/graph-breaks.md#what-the-one-graph-contains-the-fast-path",
              RiskKind.RECOMPILE: "docs/dynamic-shapes.md#the-strategies",
              RiskKind.NO_TF32: "docs/speed-settings.md#tf32-one-process-per-setting",
              RiskKind.MISMATCH:
                  "docs/debugging.md#a-compiled-model-that-gives-wrong-answers-the-accuracy-minifier"}
# The section of the graph-breaks page that fixes each kind of break, by Dynamo's words for it.
FIXES = ((r"data-dependent|generic_jump", "#data-dependent-control-flow"),
         (r"print|logging", "#printing-and-logging-in-forward"),
         (r"numpy", "#numpy-in-forward"),
         (r"", "#the-causes-broken-and-fixed"))


def fix_link(kind: str, reason: str) -> str:
    text = f"{kind} {reason}"
    return GRAPH_BREAKS + next(a for p, a in FIXES if re.search(p, text, re.I))


def risk_link(kind: RiskKind, where: str, breaks: dict[str, str] | None = None) -> str:
    """The page that says what to do about a risk; a break's, by the fix of its cause
    (``breaks``: each break's line to its fix link)."""
    return RISK_PAGES.get(kind) or (breaks or {}).get(where) or fix_link(kind.value, where)


def served(link: str) -> str:
    """A ``docs/page.md#anchor`` path as a link from a page of the built site."""
    page, _, anchor = link.removeprefix("docs/").partition("#")
    name = page.removesuffix(".md")
    return f"[{name}](../{name}/{'#' + anchor if anchor else ''})"


@dataclass(frozen=True)
class Block:
    title: str
    head: tuple[str, ...] = ()
    rows: tuple[tuple[object, ...], ...] = ()
    notes: tuple[str, ...] = ()  # one line each: counts, what was skipped, a fault
    code: tuple[str, ...] = ()
    vertical: bool = False  # a terminal lists each row's cells under its first (long texts)


def _ratio(value: float | None, spread: float | None) -> str:
    # A third decimal where the band is narrower than the second: 1.005× ±0.003, not 1.01× ±0.00.
    half = (spread or 0) / 2
    places = 2 if half >= 0.005 else 3
    return "–" if value is None else f"{value:.{places}f}× ±{half:.{places}f}"


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} s"


def _stalls(stalls: tuple | list, name: str | None) -> str:
    if name is None or stalls[0] is None:
        return "–"
    return SAY["stalls_of"].format(default=render.num(stalls[0], ".1f"),
                                   remedy=render.num(stalls[1], ".1f"), name=name)


def code_lines(rec: Recommendation) -> tuple[str, ...]:
    if rec.advice is not Advice.COMPILE:
        return ()
    args = "".join(f", {k}={v}" for k, v in rec.compile_args)
    return (f"model = torch.compile(model{args})", *rec.before_call, rec.call)


def _verdict_rows(v: dict, batch: object, note: str = "") -> tuple[tuple[str, object], ...]:
    """The verdict's rows, from the verdict as a results file holds it (``findings.as_dict``)."""
    calls = "never" if v["advice"] == Advice.STAY_EAGER.value else render.num(
        v["break_even_calls"], ".0f")
    return ((SAY["advice"], v["advice"]), (SAY["batch"], batch), (SAY["mode"], v["mode"] or "–"),
            (SAY["speedup"], _ratio(v["speedup"], v["spread"]) + note),
            (SAY["compile"], _seconds(v["compile_s"])), (SAY["calls"], calls),
            (SAY["shapes"], v["shapes"] or "–"),
            (SAY["stalls"], _stalls(v["stalls_s"], v["shapes"])))


def verdict(rec: Recommendation, batch: int | None = None,
            breaks: dict[str, str] | None = None) -> list[Block]:
    rows = _verdict_rows(as_dict(rec), batch or "–",
                         f" ({rec.verdict.value})" if rec.verdict else "")
    out = [Block(SAY["verdict"], (SAY["finding"], SAY["value"]), rows)]
    if rec.risks:
        out.append(Block(SAY["risks"], ("risk", "where", "times", "what to do"),
                         tuple((r.kind.value, r.where, r.count,
                                risk_link(r.kind, r.where, breaks)) for r in rec.risks)))
    if code_lines(rec):
        out.append(Block(SAY["code"], code=code_lines(rec)))
    return out


def section(s: Section, schedule: tuple[int, ...]) -> Block:
    title = SAY[s.phase].format(schedule=",".join(map(str, schedule)))
    notes = [SAY["took"].format(seconds=s.seconds)]
    notes += [SAY["skipped"].format(what=w) for w in s.skipped]
    if s.status is Status.FAULT:
        notes.append(SAY["fault"].format(message=s.message))
    if s.status is Status.SKIPPED:
        notes.append(SAY["skipped"].format(what=s.message))
    if s.status is not Status.DONE:
        return Block(title, notes=tuple(notes))
    if s.phase is Phase.BREAKS:
        exp = s.found
        notes.insert(0, SAY["graphs"].format(graphs=render.count(exp.graph_count, "graph"),
                                             breaks=render.count(exp.graph_break_count, "break")))
        rows = tuple((r.location, r.reason, r.hint or "–", fix_link(r.kind, r.reason))
                     for r in exp.break_reasons)
        return Block(title, ("line", "reason", "hint", "fix"), rows, tuple(notes), vertical=True)
    if s.phase is Phase.RECOMPILES:
        rows = tuple((st.name, st.compiles, ",".join(map(str, st.compiled_at)) or "–",
                      render.num(st.stall_s, ".1f"),
                      "yes" if st.correct and not st.errors else "; ".join(st.errors) or "no")
                     for st in s.found)
        notes += [SAY["guard"].format(strategy=st.name, failure=f)
                  for st in s.found[:1] for f in st.guard_failures]
        return Block(title, ("strategy", "compiles", "compiled at batch", "stalls s", "correct"),
                     rows, tuple(notes))
    rows = tuple((m.mode, m.status, render.num(m.compile_s, ".1f"), render.num(m.warm_s, ".1f"),
                  render.ms(m.latency.median if m.latency else None),
                  _ratio(m.speedup.value, m.speedup.iqr) if m.speedup else "–",
                  render.num(m.break_even_calls, ".0f"), m.message or "–") for m in s.found)
    return Block(title, ("mode", "status", "first call s, empty cache", "warm cache",
                         "ms per call", "speedup", SAY["calls"], "note"), rows,
                 tuple(notes))


def blocks(sections: tuple[Section, ...], rec: Recommendation, schedule: tuple[int, ...]
           ) -> list[Block]:
    exp = next((s.found for s in sections if s.phase is Phase.BREAKS
                and s.status is Status.DONE), None)
    links = {r.location: fix_link(r.kind, r.reason) for r in exp.break_reasons} if exp else {}
    return [*verdict(rec, schedule[0] if schedule else None, links),
            *(section(s, schedule) for s in sections)]


def markdown(found: list[Block], title: str) -> str:
    out = [f"# {title}"]
    for b in found:
        out.append(f"## {b.title}")
        if b.notes:
            out.append("\n".join(f"- {n}" for n in b.notes))
        if b.rows:
            out.append(render.markdown_table(b.head, b.rows, align="l" * len(b.head)))
        if b.code:
            out.append("```python\n" + "\n".join(b.code) + "\n```")
    return "\n\n".join(out) + "\n"


def terminal(found: list[Block], title: str, console: object) -> None:
    """Draw the blocks on a rich ``Console``."""
    from rich.markup import escape
    from rich.rule import Rule
    from rich.syntax import Syntax
    from rich.table import Table

    console.print(Rule(title))
    for b in found:
        console.print(f"\n[bold]{b.title}[/bold]")
        for n in b.notes:
            console.print(f"  {escape(n)}", highlight=False)
        if b.rows and b.vertical:
            for r in b.rows:
                console.print(f"  [bold]{escape(str(r[0]))}[/bold]", highlight=False)
                for h, v in zip(b.head[1:], r[1:], strict=True):
                    console.print(f"    {h}: {escape(str(v))}", highlight=False)
        elif b.rows:
            table = Table(*b.head, show_header=any(b.head))
            for r in b.rows:
                table.add_row(*(escape(str(c)) for c in r))
            console.print(table)
        if b.code:
            console.print(Syntax("\n".join(b.code), "python"))


def summary(doc: dict) -> str:
    """A recorded diagnosis, as the Results page draws it: the verdict, its risks, the phases."""
    v = doc["verdict"]
    schedule = doc["provenance"].get("settings", {}).get("schedule") or ["–"]
    links = {r["location"]: fix_link(r["kind"], r["reason"]) for row in doc["rows"]
             if row["phase"] == Phase.BREAKS.value and row.get("found")
             for r in row["found"]["break_reasons"]}
    # Words align left, counts and seconds right.
    out = [render.markdown_table((SAY["finding"], SAY["value"]), _verdict_rows(v, schedule[0]),
                                 align="ll")]
    if v["risks"]:
        out.append(render.markdown_table(
            ("risk", "where", "times", "what to do"),
            [(r["kind"], r["where"], r["count"],
              served(risk_link(RiskKind(r["kind"]), r["where"], links))) for r in v["risks"]],
            align="llrl"))
    out.append(render.markdown_table(
        ("phase", "outcome", "s", "skipped"),
        [(r["phase"], r["outcome"], f"{r['seconds']:.1f}", "; ".join(r["skipped"]) or "–")
         for r in doc["rows"]], align="llrl"))
    return "\n\n".join(out)
