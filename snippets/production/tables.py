"""The production page's tables, drawn from its results files and their findings; nothing here
measures, and the words around the tables are the page's (``docs/includes/production.md``)."""

from __future__ import annotations

import statistics
from typing import Any

from snippets.core import columns, render
from snippets.core import rows as typed
from snippets.production import findings, kinds, paths, runs, serving_findings


def _ordered(doc: dict[str, Any]) -> list[tuple[tuple[str, str], runs.PathRuns]]:
    """Each (model, path) of a start-up file, its paths in the page's order: a path added by a
    later command still sits with its model's."""
    summary = runs.paths(doc)
    models, order = list(dict.fromkeys(m for m, _ in summary)), list(runs.LABELS)
    return sorted(summary.items(), key=lambda kv: (
        models.index(kv[0][0]), order.index(kv[0][1]) if kv[0][1] in order else 99))


def startup(doc: dict[str, Any]) -> str:
    """Seconds until the first answer against milliseconds per call, per model and path."""
    head = ("Model · start-up path", "First answer s", "Steady s", "ms per call", "Runs",
            "Status")
    rows = []
    for (model, path), s in _ordered(doc):
        first = render.num(s.first_s, ".1f")
        if path in paths.BUILDS:
            first = f"built in {render.num(s.build_s, '.1f')}"
        # A failed run's cell: each failure's first clause (a crash's frame is in the detail).
        rows.append((f"{model} · {s.label}", first, render.num(s.steady_s, ".1f"),
                     render.ms(s.ms), f"{s.good}/{s.runs}", "; ".join(s.short) or "ok"))
    return render.markdown_table(head, rows, left_last=True)


def startup_detail(doc: dict[str, Any]) -> str:
    """Every run of a start-up file, in a block that opens on a click."""
    head = ("Model · path · run", "Import s", "Ready s", "First s", "Steady s", "Build s",
            "ms per call", "Host canary µs", "Graph cache hits/misses", "rel err")
    # Runs are numbered per model and path in the order they ran: repetitions of several
    # commands each count from one in their own command.
    ordered = sorted(doc["rows"], key=runs.ran)
    number = {id(r): n for group in runs.by_path(ordered).values()
              for n, r in enumerate(group, start=1)}
    rows = [(f"{r['model']} · {r['path']} · {number[id(r)]}", render.num(r["import_s"], ".1f"),
             render.num(r["ready_s"], ".1f"), render.num(r["first_s"], ".1f"),
             render.num(r["steady_s"], ".1f"), render.num(r["build_s"], ".1f"),
             render.ms((r["latency_ms"] or {}).get("median")),
             render.num(r.get("host_canary_us"), ".0f"),
             f"{r.get('fx_cache_hits', '–')}/{r.get('fx_cache_misses', '–')}",
             render.num(r["rel_err"], ".1e")) for r in ordered]
    return render.details("Every run", render.markdown_table(head, rows))


def startup_paths(doc: dict[str, Any]) -> str:
    """Each path against eager (lateness, calls to catch up), its graph-cache misses, its runs'
    spread where the median hides it, its failed runs and the commit it has been ok from."""
    found = findings.startup(doc)
    against = {(m.model, a.path): a for m in found.models for a in m.against}
    spread = {(s.model, s.label): s.ratio for s in found.spreads}
    partly = {(f.model, f.label): f for f in found.partly_failed}
    head = ("Model · path", "vs eager s", "Catches up after", "Graph misses", "Runs differ",
            "Failed runs", "Ok from")
    rows = []
    for (model, path), s in _ordered(doc):
        if path in paths.BUILDS:
            continue
        a, f = against.get((model, path)), partly.get((model, s.label))
        rows.append((
            f"{model} · {s.label}", render.num(a and a.late, "+.1f"),
            "–" if a is None else render.num(a.calls, ",.0f") if a.calls else a.catch_up.value,
            render.num(s.misses, "g"), render.num(spread.get((model, s.label)), ".1f"),
            f"{s.runs - s.good}/{s.runs}" if s.good < s.runs else "–",
            "–" if f is None else f.first_good if f.fixed else "now and then"))
    return render.markdown_table(head, rows)


def _part(seconds: float | None, of: float | None, load: float | None) -> str:
    """Seconds of a load, with the load of the runs that timed them where that is not all."""
    return render.num(seconds, ".1f") + (f" of {of:.1f}" if seconds is not None and of != load
                                         else "")


def startup_loads(doc: dict[str, Any]) -> str:
    """Each load of a package or a precompiled function: seconds from import to ready, and of
    them Inductor's check of the CPU and the import of Dynamo and Inductor."""
    head = ("Model · path", "Load s", "CPU check s", "Compiler import s")
    checked = {True: "ran", False: "none", None: "–"}
    return render.markdown_table(head, [
        (f"{model} · {s.label}", render.num(s.load_s, ".1f"),
         _part(s.isa_s, s.isa_of_s, s.load_s) if s.isa_s is not None
         else checked[s.isa_checked], _part(s.stack_s, s.stack_of_s, s.load_s))
        for (model, path), s in _ordered(doc) if "-load" in path and s.load_s is not None])


def startup_goal(doc: dict[str, Any]) -> str:
    """Per model, the fastest portable path against the start-up goal: its lateness over eager
    and its per-call time over the best just-in-time path's."""
    head = ("Model", "Fastest portable path", "vs eager s", "Per call vs best JIT", "Goal")
    return render.markdown_table(head, [
        (g.model, g.label, render.num(g.late, "+.1f"), render.num(g.slower, "+.0%"),
         g.goal.value) for m in findings.startup(doc).models if (g := m.portable)], left=2)


def startup_readings(doc: dict[str, Any]) -> str:
    """The readings of a start-up file: each path against eager, each load, the goal."""
    return "\n\n".join((startup_paths(doc), startup_loads(doc), startup_goal(doc)))


def stream(doc: dict[str, Any]) -> str:
    """Each strategy's replay of the request stream: compiles during it, its tail (and the
    tail over the median, which the stream's goal bounds), warm-up."""
    head = ("Strategy", "Compiles in stream", "p50 ms", "p99 ms", "p99/p50", "Max ms",
            "Warm-up s", "Status")
    rows = [(r["strategy"], render.num(r["compiles"], "d"), render.ms(r["p50_ms"]),
             render.ms(r["p99_ms"]), render.num(r["p99_ms"] / r["p50_ms"] if r["p50_ms"]
                                                and r["p99_ms"] is not None else None, ".2f"),
             render.ms(r["max_ms"]), render.num(r["warmup_s"], ".1f"),
             r["status"] + (f": {r['message']}" if r["message"] else ""))
            for r in doc["rows"]]
    return render.markdown_table(head, rows, left_last=True)


def modes(doc: dict[str, Any]) -> str:
    """Each model, batch and mode: latency, the eager median of the run that timed it (a mode
    added by a later command was timed beside an eager of its own), the speedup over that
    eager, both compile times."""
    placed = typed.in_runs(doc["rows"], lambda r: r["mode"] == "eager")
    eager = {id(p): serving_findings.own_eager_ms(doc, p.row) for p in placed}
    key = (columns.field("Model", "model"), columns.field("Batch", "batch_size"),
           columns.variant("Mode", "mode"))
    return columns.markdown(placed, key, (
        columns.ms("Eager", lambda p: eager[id(p)]),
        columns.ms("Median", lambda p: (p.row["latency_ms"] or {}).get("median")),
        # The ratio of the two medians beside it: shown only where that eager is.
        columns.Column("Speedup", lambda p: None if eager[id(p)] is None else p.row["speedup"],
                       lambda v: f"{v:.2f}x", notes=(columns.RATIO,)),
        columns.number("Compile s, empty", lambda p: p.row["compile_empty_s"], ".1f"),
        columns.number("Compile s, warm", lambda p: p.row["compile_warm_s"], ".1f"),
        columns.words("Status", lambda p: p.row["status"]
                      + (f": {p.row['message']}" if p.row["message"] else ""))))


def mode_pairs(doc: dict[str, Any]) -> str:
    """Each max-autotune mode against the mode it adds tuning to, per model and batch: its speed
    over that mode's by medians and by speedups, the verdict, both compile times."""
    head = ("Model · batch", "Mode · against", "By medians", "By speedups", "Verdict",
            "Compile s, both")
    return render.markdown_table(head, [
        (f"{p.model} · {p.batch}", f"`{p.tuned}` · `{p.base}`", render.num(p.by_median, ".2f"),
         render.num(p.by_speedup, ".2f"), p.rank.value,
         f"{render.num(p.tuned_compile_s, '.0f')} · {render.num(p.base_compile_s, '.0f')}")
        for p in serving_findings.modes(doc).pairs], align="llrrlr")


def hazards(doc: dict[str, Any]) -> str:
    """Each hazard's variants: what happened, and torch's message (its first part)."""
    head = ("Hazard · variant", "Outcome", "What torch said")
    rows = []
    for r in doc["rows"]:
        outcome = r["outcome"]
        if r.get("held_mb") is not None:
            outcome = f"holds {r['held_mb']:.0f} MB"
        # torch's message goes on to a stack trace and advice the reading covers: its first part
        message = r["message"].split(" Stack trace:")[0].replace(" Found from :", "")[:200]
        rows.append((f"{r['hazard']} · {r['variant']}", outcome, message))
    return render.markdown_table(head, rows, left_last=True)


def report(doc: dict[str, Any]) -> str:
    """The tables of a document of any of the production kinds (the page's readings of them are
    in its prose, from ``findings``)."""
    if doc["kind"] == kinds.STARTUP.name:
        return startup(doc) + "\n\n" + startup_detail(doc)
    return {kinds.STREAM.name: stream, kinds.MODES.name: modes,
            kinds.REGIONS.name: regions}.get(doc["kind"], hazards)(doc)


# ---- the newer switches (snippets.production.apis) ---------------------------------------------

def api_stances(value: dict[str, Any]) -> str:
    """Compiles over the three calls of the schedule, per stance."""
    head = ("Stance", "Warm-up first", "Calls", "Compiles", "Answers as eager")
    return render.markdown_table(head, [
        (f"`{r['stance']}`", "yes" if r["warm_up"] else "no", r["calls"],
         render.num(r["compiles"], "d"), "yes" if r["all_correct"] else r.get("message", "no"))
        for r in value["stances"]], align="llrrl")


def api_regions(value: dict[str, Any]) -> str:
    """What Dynamo hands the backend for the same stack of blocks, marked and not."""
    head = ("Blocks", "Graphs", "Ops traced", "Subgraph calls", "Answers as eager")
    return render.markdown_table(head, [
        (f"{r['variant']} · {r['blocks']}", r["graphs"], r["ops"], r["subgraph_calls"],
         "yes" if r["all_correct"] else "no") for r in value["regions"]], align="lrrrl")


def api_present(value: dict[str, Any]) -> str:
    """Which of the switches the torch that built the page has."""
    return render.markdown_table((f"In torch {value['torch']}", "Present"), [
        (f"`{name}`", "yes" if have else "no") for name, have in value["present"].items()])


def apis(value: dict[str, Any]) -> str:
    """The live section's three tables."""
    return "\n\n".join((api_stances(value), api_regions(value), api_present(value)))


def regions(doc: dict[str, Any]) -> str:
    """Each variant's first call (compile included), its median over the processes, each
    process's, and the median against the unmarked stack's of the same run."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in doc["rows"]:
        by.setdefault(r["variant"], []).append(r)
    medians = {v: statistics.median(ok) if (ok := [r["compile_s"] for r in rs
                                                   if r["status"] == "ok"]) else None
               for v, rs in by.items()}
    base = medians.get("unmarked")
    head = ("Stack · variant", "First call s", "Each process, s", "÷ unmarked", "Status")
    return render.markdown_table(head, [
        (f"{rs[0]['blocks']} blocks · {v}", render.num(medians[v], ".1f"),
         ", ".join(render.num(r["compile_s"], ".1f") for r in rs),
         render.num(medians[v] / base if base and medians[v] else None, ".2f"),
         "; ".join(dict.fromkeys(r["status"] + (f": {r['message']}" if r["message"] else "")
                                 for r in rs)))
        for v, rs in by.items()], left_last=True)
