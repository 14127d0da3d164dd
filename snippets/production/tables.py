"""The production page's tables and the readings computed from them; nothing here measures.

Each function takes a results document and returns Markdown. Repetitions of a start-up path are
summarized by their median; every sample stays in the file.
"""

from __future__ import annotations

import statistics
from typing import Any

from snippets.core import measure, render

LABELS = {"eager": "eager", "compile-empty": "compile, empty cache",
          "compile-warm": "compile, warm local cache", "artifacts": "compile, cache artifacts",
          "regional": "regional compile, empty cache", "aot-build": "AOTInductor build",
          "aot-load": "AOTInductor package"}


def _median(values: list[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


def startup_summary(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Per (model, path): the median over repetitions of each time, and every status seen."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in doc["rows"]:
        groups.setdefault((row["model"], row["path"]), []).append(row)
    out = {}
    for key, rows in groups.items():
        good = [r for r in rows if r["status"] in ("ok", "noisy")]
        out[key] = {
            "runs": len(rows), "good": len(good),
            "first_s": _median([r["first_s"] for r in good]),
            "steady_s": _median([r["steady_s"] for r in good]),
            "build_s": _median([r["build_s"] for r in good]),
            "ms": _median([(r["latency_ms"] or {}).get("median") for r in good]),
            "status": "ok" if len(good) == len(rows) else
            "; ".join(sorted({f"{r['status']}: {r['message']}" for r in rows
                              if r not in good})),
        }
    return out


def startup(doc: dict[str, Any]) -> str:
    """Seconds until the first answer against milliseconds per call, per model and path."""
    head = ("Model · start-up path", "First answer s", "Steady s", "ms per call", "Runs",
            "Status")
    rows = []
    for (model, path), s in startup_summary(doc).items():
        first = render.num(s["first_s"], ".1f")
        if path == "aot-build":
            first = f"built in {render.num(s['build_s'], '.1f')}"
        rows.append((f"{model} · {LABELS.get(path, path)}", first,
                     render.num(s["steady_s"], ".1f"), render.ms(s["ms"]),
                     f"{s['good']}/{s['runs']}", s["status"]))
    return render.markdown_table(head, rows, left_last=True)


def startup_reading(doc: dict[str, Any]) -> str:
    """What the start-up table says, per model: how soon each compiled path answers, and after
    how many calls it has caught up with eager (its extra seconds over the time it saves)."""
    summary = startup_summary(doc)
    lines = []
    for model in dict.fromkeys(m for m, _ in summary):
        eager = summary.get((model, "eager"), {})
        if eager.get("first_s") is None or eager.get("ms") is None:
            continue
        parts = []
        for path in ("compile-empty", "compile-warm", "artifacts", "regional", "aot-load"):
            s = summary.get((model, path))
            if not s or s["first_s"] is None or s["ms"] is None:
                continue
            late = s["first_s"] - eager["first_s"]
            saved = (eager["ms"] - s["ms"]) / 1e3
            even = (f"catches up with eager after {late / saved:,.0f} calls" if saved > 0 and
                    late > 0 else "answers no later than eager" if late <= 0 else
                    "never catches up: no faster per call")
            parts.append(f"{LABELS[path]}: first answer {late:+.1f} s against eager, "
                         f"{render.ms(s['ms'])} ms per call, {even}")
        if parts:
            lines.append(f"- **{model}** (eager: first answer at "
                         f"{eager['first_s']:.1f} s, {render.ms(eager['ms'])} ms per call): "
                         + "; ".join(parts) + ".")
    return "\n".join(lines) or "No model has both an eager row and a compiled one yet."


def startup_detail(doc: dict[str, Any]) -> str:
    head = ("Model · path · run", "Import s", "Ready s", "First s", "Steady s", "Build s",
            "Graph cache hits/misses", "rel err")
    rows = [(f"{r['model']} · {r['path']} · {r['rep'] + 1}", render.num(r["import_s"], ".1f"),
             render.num(r["ready_s"], ".1f"), render.num(r["first_s"], ".1f"),
             render.num(r["steady_s"], ".1f"), render.num(r["build_s"], ".1f"),
             f"{r.get('fx_cache_hits', '–')}/{r.get('fx_cache_misses', '–')}",
             render.num(r["rel_err"], ".1e")) for r in doc["rows"]]
    return render.details("Every run (import, ready, cache hits, error against eager)",
                          render.markdown_table(head, rows))


def stream(doc: dict[str, Any]) -> str:
    head = ("Strategy", "Compiles in stream", "p50 ms", "p99 ms", "Max ms", "Warm-up s",
            "Status")
    rows = [(r["strategy"], render.num(r["compiles"], "d"), render.ms(r["p50_ms"]),
             render.ms(r["p99_ms"]), render.ms(r["max_ms"]), render.num(r["warmup_s"], ".1f"),
             r["status"] + (f": {r['message']}" if r["message"] else ""))
            for r in doc["rows"]]
    return render.markdown_table(head, rows, left_last=True)


def stream_reading(doc: dict[str, Any]) -> str:
    done = [r for r in doc["rows"] if r["max_ms"] is not None]
    if not done:
        return "No strategy finished its stream."
    calm = min(done, key=lambda r: r["max_ms"])
    clean = [r["strategy"] for r in done if r["compiles"] == 0 and r["strategy"] != "eager"]
    return (f"- Slowest single request is shortest with **{calm['strategy']}** "
            f"({render.ms(calm['max_ms'])} ms).\n"
            f"- Compiled nothing during the stream: {', '.join(clean) or 'no compiled strategy'}"
            " (after a warm-up, under `fail_on_recompile`: a compile would have raised).")


# A mode "pays" over default when its median is lower by more than the spread the guide calls
# noise (measure.NOISY_IQR_RATIO): a smaller difference is within what reruns disagree by.
PAYS = measure.NOISY_IQR_RATIO


def modes(doc: dict[str, Any]) -> str:
    head = ("Model · batch · mode", "Median ms", "Speedup", "Compile s, empty",
            "Compile s, warm", "Status")
    rows = [(f"{r['model']} · {r['batch_size']} · {r['mode']}",
             render.ms((r["latency_ms"] or {}).get("median")),
             "–" if r["speedup"] is None else f"{r['speedup']:.2f}x",
             render.num(r["compile_empty_s"], ".1f"), render.num(r["compile_warm_s"], ".1f"),
             r["status"] + (f": {r['message']}" if r["message"] else "")) for r in doc["rows"]]
    return render.markdown_table(head, rows, left_last=True)


def modes_reading(doc: dict[str, Any]) -> str:
    """Per model and batch: the fastest mode, and whether max-autotune-no-cudagraphs pays."""
    groups: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
    for r in doc["rows"]:
        if r["status"] in ("ok", "noisy") and r["latency_ms"]:
            groups.setdefault((r["model"], r["batch_size"]), {})[r["mode"]] = r
    lines = []
    for (model, bs), rows in groups.items():
        compiled = {m: r for m, r in rows.items() if m != "eager"}
        if not compiled:
            continue
        best = min(compiled.values(), key=lambda r: r["latency_ms"]["median"])
        line = (f"- **{model}, batch {bs}**: fastest is `{best['mode']}` "
                f"({best['speedup']:.2f}x over eager)")
        tuned, default = rows.get("max-autotune-no-cudagraphs"), rows.get("default")
        if tuned and default:
            ratio = default["latency_ms"]["median"] / tuned["latency_ms"]["median"]
            verdict = ("pays" if ratio > 1 + PAYS else "does not pay" if ratio < 1 - PAYS
                       else "is within noise of default")
            line += (f"; `max-autotune-no-cudagraphs` {verdict} ({ratio:.2f}x default's speed,"
                     f" compiling in {render.num(tuned['compile_empty_s'], '.0f')} s against "
                     f"{render.num(default['compile_empty_s'], '.0f')} s with an empty cache)")
        lines.append(line + ".")
    return "\n".join(lines) or "No mode finished on this run."


def hazards(doc: dict[str, Any]) -> str:
    head = ("Hazard · variant", "Outcome", "What torch said")
    rows = []
    for r in doc["rows"]:
        outcome = r["outcome"]
        if r.get("held_mb") is not None:
            outcome = f"holds {r['held_mb']:.0f} MB"
        rows.append((f"{r['hazard']} · {r['variant']}", outcome, r["message"][:200]))
    return render.markdown_table(head, rows, left_last=True)


def report(doc: dict[str, Any]) -> str:
    """The tables and readings of a document of any of the production kinds."""
    kind = doc["kind"]
    if kind == "production-startup":
        return startup(doc) + "\n\n" + startup_reading(doc) + "\n\n" + startup_detail(doc)
    if kind == "production-stream":
        return stream(doc) + "\n\n" + stream_reading(doc)
    if kind == "production-modes":
        return modes(doc) + "\n\n" + modes_reading(doc)
    return hazards(doc)
