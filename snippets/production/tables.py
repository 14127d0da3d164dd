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
          "aot-load": "AOTInductor package, empty cache",
          "aot-load-warm": "AOTInductor package, warm cache",
          "aot-load-trusted": "AOTInductor package, CPU check skipped"}


def _median(values: list[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


GOOD = ("ok", "noisy")  # the statuses of a run whose figures count


def _by_path(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Rows grouped per (model, path), each group in the order given."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["model"], row["path"]), []).append(row)
    return groups


def _ran(row: dict[str, Any]) -> str:
    """A row's sort key in run order: its command's start (sorting is stable within one)."""
    return row.get("date") or ""


def _failure(row: dict[str, Any]) -> str:
    """A failed run in a few words: its status and its message's first clause (a crash's frame
    follows ", File" and is left to the detail)."""
    return f"{row['status']}: {row['message'].split(', File')[0][:60]}"


def startup_summary(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Per (model, path): the median over repetitions of each time, every run's own per-call
    figure (a median of two is their mean, so the reading shows the spread), the Inductor
    cache's misses and the package's load time, and every status seen."""
    out = {}
    for key, rows in _by_path(doc["rows"]).items():
        good = [r for r in rows if r["status"] in GOOD]
        out[key] = {
            "runs": len(rows), "good": len(good),
            "first_s": _median([r["first_s"] for r in good]),
            "steady_s": _median([r["steady_s"] for r in good]),
            "build_s": _median([r["build_s"] for r in good]),
            "ms": _median([(r["latency_ms"] or {}).get("median") for r in good]),
            "ms_runs": [(r["latency_ms"] or {}).get("median") for r in good
                        if (r["latency_ms"] or {}).get("median") is not None],
            # Graphs Inductor compiled (its FX-graph cache missed): what regional compile saves
            # when blocks are identical, and what it does not when they differ.
            "misses": _median([r.get("fx_cache_misses") for r in good]),
            # Loading alone: the process was ready (package loaded) this long after its import.
            "load_s": _median([r["ready_s"] - r["import_s"] for r in good
                               if r.get("ready_s") is not None
                               and r.get("import_s") is not None]),
            # Of that, Inductor's check of the CPU's vector instructions (packages only), and
            # the loading of the runs that timed it, so the two come from the same runs.
            "isa_s": _median([r.get("isa_check_s") for r in good]),
            "isa_of_s": _median([r["ready_s"] - r["import_s"] for r in good
                                 if r.get("isa_check_s") is not None]),
            "status": "ok" if len(good) == len(rows) else
            "; ".join(sorted({f"{r['status']}: {r['message']}" for r in rows
                              if r not in good})),
            # The table's cell: each failure's first clause (a crash's frame is in the reading).
            "short": "ok" if len(good) == len(rows) else
            "; ".join(sorted({_failure(r) for r in rows if r not in good})),
        }
    return out


def startup(doc: dict[str, Any]) -> str:
    """Seconds until the first answer against milliseconds per call, per model and path."""
    head = ("Model · start-up path", "First answer s", "Steady s", "ms per call", "Runs",
            "Status")
    rows = []
    summary = startup_summary(doc)
    models = list(dict.fromkeys(m for m, _ in summary))
    order = list(LABELS)  # a path added by a later command still sits with its model's
    for (model, path), s in sorted(summary.items(), key=lambda kv: (
            models.index(kv[0][0]), order.index(kv[0][1]) if kv[0][1] in order else 99)):
        first = render.num(s["first_s"], ".1f")
        if path == "aot-build":
            first = f"built in {render.num(s['build_s'], '.1f')}"
        rows.append((f"{model} · {LABELS.get(path, path)}", first,
                     render.num(s["steady_s"], ".1f"), render.ms(s["ms"]),
                     f"{s['good']}/{s['runs']}", s["short"]))
    return render.markdown_table(head, rows, left_last=True)


def startup_reading(doc: dict[str, Any]) -> str:
    """What the start-up table says, per model: how soon each compiled path answers, and after
    how many calls it has caught up with eager (its extra seconds over the time it saves)."""
    summary = startup_summary(doc)
    lines = []
    for model in dict.fromkeys(m for m, _ in summary):
        eager = summary.get((model, "eager"), {})
        parts = []
        for path in ("compile-empty", "compile-warm", "artifacts", "regional", "aot-load",
                     "aot-load-warm", "aot-load-trusted"):
            s = summary.get((model, path))
            if (not s or s["first_s"] is None or s["ms"] is None
                    or eager.get("first_s") is None or eager.get("ms") is None):
                continue
            late = s["first_s"] - eager["first_s"]
            saved = (eager["ms"] - s["ms"]) / 1e3
            even = (f"catches up with eager after {late / saved:,.0f} calls" if saved > 0 and
                    late > 0 else "answers no later than eager" if late <= 0 else
                    "never catches up: no faster per call")
            parts.append(f"{LABELS[path]}: first answer {late:+.1f} s against eager, "
                         f"{render.ms(s['ms'])} ms per call, {even}")
        failed = [f"{LABELS[p]} ({s['status']})" for (m, p), s in summary.items()
                  if m == model and s["good"] == 0]
        if parts:
            lines.append(f"- **{model}** (eager: first answer at "
                         f"{eager['first_s']:.1f} s, {render.ms(eager['ms'])} ms per call): "
                         + "; ".join(parts) + ".")
        if failed:
            lines.append(f"- **{model}**, failed in every run: " + "; ".join(failed) + ".")
        lines += [line for line in (_regional(summary, model), _aot(summary, model),
                                    startup_goal(summary, model)) if line]
    lines += _spreads(summary) + _partly_failed(doc) + _loads_alike(summary)
    if doc["rows"] and all(r.get("host_canary_us") is None for r in doc["rows"]):
        lines.append("- Host canary: not recorded in this file (its runs predate it), so the "
                     "detail block cannot tell a process on a slow host apart.")
    return "\n".join(lines) or "No path finished in this file."


def _regional(summary: dict[tuple[str, str], dict[str, Any]], model: str) -> str:
    """Regional against whole-model compile, with the graphs each compiled: blocks share one
    compiled graph only when they are identical, so the count says whether they did."""
    whole, regional = summary.get((model, "compile-empty")), summary.get((model, "regional"))
    if not whole or not regional or None in (whole["first_s"], regional["first_s"]):
        return ""
    late = regional["first_s"] - whole["first_s"]
    if None in (whole["misses"], regional["misses"]):
        graphs = ""
    elif not regional["misses"]:
        graphs = ("; Inductor's graph cache counted no miss for it, so this file does not show "
                  "how many graphs it compiled")
    else:
        graphs = (f"; Inductor compiled {regional['misses']:g} graph(s) for it (cache misses) "
                  f"against {whole['misses']:g} for the whole model")
    why = (": its blocks are not identical (a ResNet's stages differ in channels and stride), "
           "so each compiled on its own" if (regional["misses"] or 0) > 1 else "")
    return (f"- **{model}**, regional compile answered first {abs(late):.1f} s "
            f"{'later' if late > 0 else 'sooner'} than whole-model compile{graphs}{why}.")


def _aot(summary: dict[tuple[str, str], dict[str, Any]], model: str) -> str:
    """Where an AOTInductor package's first answer went: loading it, after the import, and of
    that, Inductor's check of the CPU (where the run timed it); and loading it again on the
    same cache folder."""
    load, build = summary.get((model, "aot-load")), summary.get((model, "aot-build"))
    if not load or load["load_s"] is None or load["first_s"] is None:
        return ""
    built = (f", building it {build['build_s']:.1f} s in a process of its own"
             if build and build["build_s"] is not None else "")
    line = (f"- **{model}**, AOTInductor package: loading it took {load['load_s']:.1f} s of its "
            f"{load['first_s']:.1f} s to a first answer (ready minus import){built}.")
    if load["isa_s"] is None:
        line += " Loading is not free: this file does not say which part of it takes the time."
    else:
        timed = ("" if load["isa_of_s"] == load["load_s"] else
                 f" (in the runs that timed it, of {load['isa_of_s']:.1f} s loading)")
        line += (f" Of the loading, {load['isa_s']:.1f} s went to Inductor's check of the CPU's "
                 f"vector instructions{timed}, which loading a package runs to compare this "
                 "machine with the one it was built for.")
    warm = summary.get((model, "aot-load-warm"))
    if warm and warm["load_s"] is not None:
        line += (f" Loaded again on the same cache folder, as after a restart, it took "
                 f"{warm['load_s']:.1f} s"
                 + (f" ({warm['isa_s']:.1f} s of it the check)" if warm["isa_s"] is not None
                    else "") + ".")
    trusted = summary.get((model, "aot-load-trusted"))
    if trusted and trusted["load_s"] is not None and trusted["first_s"] is not None:
        still = (f", {trusted['isa_s']:.1f} s of it still the check (the checks for the "
                 "larger instruction sets build and load their programs whatever the setting "
                 "says)" if trusted["isa_s"] is not None else "")
        line += (f" With `TORCHINDUCTOR_VEC_ISA_OK=1`, which answers the check's first question "
                 f"from the CPU's own flags, on an empty cache folder, loading took "
                 f"{trusted['load_s']:.1f} s{still}, and the first answer came at "
                 f"{trusted['first_s']:.1f} s.")
    return line


# Runs of one path whose per-call figures differ more than this factor are shown: the
# "ms per call" cell is their median (with two runs, their mean) and hides the spread.
SPREAD = 1.5


def _spreads(summary: dict[tuple[str, str], dict[str, Any]]) -> list[str]:
    wide = [(m, p, s["ms_runs"]) for (m, p), s in summary.items()
            if len(s["ms_runs"]) > 1 and max(s["ms_runs"]) > SPREAD * min(s["ms_runs"])]
    return [f"- **{m}**, {LABELS.get(p, p)}: its runs' per-call figures differ "
            f"{max(runs) / min(runs):.1f}x ({' and '.join(render.ms(v) for v in runs)} ms); "
            "its \"ms per call\" and catch-up count rest on a run that was slower than the "
            "others, not on a steady figure." for m, p, runs in wide]


def _loads_alike(summary: dict[tuple[str, str], dict[str, Any]]) -> list[str]:
    """Whether loading a package took about as long for every model: a cost that does not
    follow the model's size is the loader's or the machine's, not the weights'."""
    got = [s for (_, p), s in summary.items() if p == "aot-load" and s["load_s"] is not None]
    loads = [s["load_s"] for s in got]
    if len(loads) < 2 or max(loads) > ALIKE * min(loads):
        return []
    why = ("most of it the check of the CPU above" if all(
        s["isa_s"] is not None and s["isa_s"] > s["isa_of_s"] / 2 for s in got) else
        "which this file cannot break down further")
    return [f"- Loading an AOTInductor package took about as long for every model in this "
            f"file ({min(loads):.1f} to {max(loads):.1f} s): a cost of loading itself, not of "
            f"the model, {why}."]


# Load times within this factor of each other are "about as long".
ALIKE = 1.1


def _partly_failed(doc: dict[str, Any]) -> list[str]:
    """Paths that failed in some runs and not in others, and in which order: failures that all
    came before the first good run are a fault fixed since (the commits say between which), not
    a path that fails now and then; the table's figures are the good runs'."""
    parts = doc.get("provenance", {}).get("parts") or []

    def commit(row: dict[str, Any]) -> str:
        i = row.get("part")
        return (parts[i].get("commit") or "?")[:12] if i is not None and i < len(parts) else "?"

    lines = []
    for (model, path), rows in _by_path(sorted(doc["rows"], key=_ran)).items():
        ok = [r["status"] in GOOD for r in rows]
        if all(ok) or not any(ok):
            continue
        bad = [r for r, good in zip(rows, ok, strict=True) if not good]
        why = "; ".join(sorted({_failure(r) for r in bad}))
        since = ok.index(True)
        if all(ok[since:]):
            first = "its first run" if len(bad) == 1 else f"its first {len(bad)} runs"
            lines.append(f"- **{model}**, {LABELS.get(path, path)}: {first} failed ({why}), "
                         f"the last at commit {commit(bad[-1])}; every "
                         f"run since, from commit {commit(rows[since])} on, was ok, and the "
                         "table's figures are theirs.")
        else:
            lines.append(f"- **{model}**, {LABELS.get(path, path)}: {len(bad)} of {len(rows)} "
                         f"runs failed ({why}) between runs that were ok: it fails now and "
                         "then, and the table's figures are the good runs'.")
    return lines


# The start-up goal this guide set itself (record, do not assert): a path that moves the
# compile out of the service (cache artifacts or AOTInductor) answers first within GOAL_S
# seconds of eager's first answer, at a steady latency at most GOAL_SLOWER above the best
# just-in-time path's.
GOAL_S, GOAL_SLOWER = 2.0, 0.05
PORTABLE = ("artifacts", "aot-load", "aot-load-trusted")
JIT = ("compile-empty", "compile-warm", "regional")


def startup_goal(summary: dict[tuple[str, str], dict[str, Any]], model: str) -> str:
    eager = summary.get((model, "eager"), {})
    done = {p: summary[(model, p)] for p in PORTABLE + JIT
            if summary.get((model, p), {}).get("first_s") is not None
            and summary[(model, p)]["ms"] is not None}
    portable = {p: s for p, s in done.items() if p in PORTABLE}
    jit = [s["ms"] for p, s in done.items() if p in JIT]
    if eager.get("first_s") is None or not portable or not jit:
        return ""
    path, best = min(portable.items(), key=lambda kv: kv[1]["first_s"])
    late, slower = best["first_s"] - eager["first_s"], best["ms"] / min(jit) - 1
    met = late <= GOAL_S and slower <= GOAL_SLOWER
    pace = (f"{abs(slower):.0%} {'slower' if slower > 0 else 'faster'} per call"
            if round(slower, 2) else "as fast per call")
    return (f"- **{model}**, goal ({LABELS[path]}, the fastest portable path, within "
            f"{GOAL_S:.0f} s of eager's first answer and at most {GOAL_SLOWER:.0%} slower per "
            f"call than the best just-in-time path): {'reached' if met else 'missed'}: "
            f"{late:.1f} s {'after' if late > 0 else 'before'} eager, {pace}.")


def startup_detail(doc: dict[str, Any]) -> str:
    head = ("Model · path · run", "Import s", "Ready s", "First s", "Steady s", "Build s",
            "ms per call", "Host canary µs", "Graph cache hits/misses", "rel err")
    # Runs are numbered per model and path in the order they ran: repetitions of several
    # commands each count from one in their own command.
    ordered = sorted(doc["rows"], key=_ran)
    number = {id(r): n for group in _by_path(ordered).values()
              for n, r in enumerate(group, start=1)}
    rows = [(f"{r['model']} · {r['path']} · {number[id(r)]}", render.num(r["import_s"], ".1f"),
             render.num(r["ready_s"], ".1f"), render.num(r["first_s"], ".1f"),
             render.num(r["steady_s"], ".1f"), render.num(r["build_s"], ".1f"),
             render.ms((r["latency_ms"] or {}).get("median")),
             render.num(r.get("host_canary_us"), ".0f"),
             f"{r.get('fx_cache_hits', '–')}/{r.get('fx_cache_misses', '–')}",
             render.num(r["rel_err"], ".1e")) for r in ordered]
    return render.details("Every run (import, ready, per call, the host's speed, cache hits, "
                          "error against eager)",
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
    clean = [r for r in done if r["compiles"] == 0 and r["strategy"] != "eager"]
    # Quoted one by one: a strategy's name may hold a comma ("warm-up, buckets").
    names = ", ".join(f"`{r['strategy']}`" for r in clean)
    tails = "; ".join(
        f"`{r['strategy']}` {r['p99_ms'] / r['p50_ms']:.2f}x "
        f"({'within' if r['p99_ms'] <= STREAM_GOAL * r['p50_ms'] else 'above'} "
        f"{STREAM_GOAL}x)" for r in clean if r["p50_ms"])
    return (f"- Slowest single request is shortest with **{calm['strategy']}** "
            f"({render.ms(calm['max_ms'])} ms).\n"
            "- Compiled nothing during the stream: "
            f"{names or 'no compiled strategy'}"
            " (after a warm-up, under `fail_on_recompile`: a compile would have raised).\n"
            f"- p99 over p50 for those (the goal: at most {STREAM_GOAL}x, with no compile): "
            f"{tails or 'none to compare'}." + _eager_tail(done) + _against_eager(done))


def _against_eager(done: list[dict[str, Any]]) -> str:
    """The median request of each compiled strategy against eager's: the stream is about stalls,
    and a reader should not take the warm-up's calm tail for a speedup it did not have."""
    eager = next((r for r in done if r["strategy"] == "eager" and r["p50_ms"]), None)
    compiled = [r for r in done if r["strategy"] != "eager" and r["p50_ms"]]
    if eager is None or not compiled:
        return ""
    slower = [r for r in compiled if r["p50_ms"] > eager["p50_ms"]]
    listed = ", ".join(f"`{r['strategy']}` {render.ms(r['p50_ms'])} ms" for r in compiled)
    verdict = ("every compiled strategy answers slower than eager" if len(slower) == len(compiled)
               else "no compiled strategy answers slower than eager" if not slower else
               "slower than eager: " + ", ".join(f"`{r['strategy']}`" for r in slower))
    return (f"\n- The median request against eager's {render.ms(eager['p50_ms'])} ms: {listed}; "
            f"{verdict}.")


def _eager_tail(done: list[dict[str, Any]]) -> str:
    """Eager's own p99 over p50: the requests differ in batch and length, so part of every
    strategy's spread is the stream's, not the compiler's."""
    eager = next((r for r in done if r["strategy"] == "eager" and r["p50_ms"]), None)
    if eager is None:
        return ""
    return (f" Eager, which compiles nothing, has {eager['p99_ms'] / eager['p50_ms']:.2f}x: "
            "the requests differ in batch and length, so part of the spread is the stream's "
            "own mix of sizes.")


# The stream goal (record, do not assert): after a warm-up, the 99th percentile request takes at
# most this many times the median one.
STREAM_GOAL = 1.5


# A mode "pays" over default when its median is lower by more than the spread the guide calls
# noise (measure.NOISY_IQR_RATIO): a smaller difference is within what reruns disagree by.
PAYS = measure.NOISY_IQR_RATIO
MODE_ORDER = ("default", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def modes(doc: dict[str, Any]) -> str:
    head = ("Model · batch · mode", "Median ms", "Speedup", "Compile s, empty",
            "Compile s, warm", "Status")
    rows = [(f"{r['model']} · {r['batch_size']} · {r['mode']}",
             render.ms((r["latency_ms"] or {}).get("median")),
             "–" if r["speedup"] is None else f"{r['speedup']:.2f}x",
             render.num(r["compile_empty_s"], ".1f"), render.num(r["compile_warm_s"], ".1f"),
             r["status"] + (f": {r['message']}" if r["message"] else "")) for r in doc["rows"]]
    return render.markdown_table(head, rows, left_last=True)


# max-autotune benchmarks candidate kernels for each matrix product and convolution it owns, which
# takes minutes; a compile under this many times default's did no such search.
UNTUNED = 1.5


def _against(mode: dict[str, Any], base: dict[str, Any]) -> tuple[str, str]:
    """Whether ``mode`` pays over ``base``, and the figures that say so.

    Each mode ran in processes of its own, beside an eager run of its own, so two figures
    compare them: their medians (as timed, whatever the host did in each process) and their
    speedups (each over its own eager, which cancels a host that was slower in one process).
    A verdict needs both to agree; where one says faster and the other slower beyond noise,
    the file cannot rank the two."""
    by_median = base["latency_ms"]["median"] / mode["latency_ms"]["median"]
    speedups = bool(mode.get("speedup") and base.get("speedup"))
    by_speedup = mode["speedup"] / base["speedup"] if speedups else by_median
    both = (by_median, by_speedup)
    if all(r > 1 + PAYS for r in both):
        verdict = "pays"
    elif all(r < 1 - PAYS for r in both):
        verdict = "slower"
    elif max(both) > 1 + PAYS and min(both) < 1 - PAYS:
        verdict = "cannot be ranked from this file"
    else:
        verdict = "does not pay"
    figures = (f"{by_median:.2f}x its speed by medians"
               + (f", {by_speedup:.2f}x by speedups" if speedups else ""))
    return verdict, figures


# A mode's own eager run this many times faster or slower than the eager row's is named: its
# speedup is over that eager, not the one in the table.
EAGER_APART = 1.2


def _own_eager(model: str, bs: int, rows: dict[str, dict[str, Any]]) -> list[str]:
    """Modes whose eager run (timed beside them in their own processes) was far from the eager
    row's, so that their speedup and their median tell different stories."""
    eager = rows.get("eager")
    if not eager:
        return []
    ref, lines = eager["latency_ms"]["median"], []
    for mode, r in rows.items():
        own = r.get("eager_median_ms") or (r["latency_ms"]["median"] * r["speedup"]
                                           if r.get("speedup") else None)
        if mode == "eager" or own is None or 1 / EAGER_APART < own / ref < EAGER_APART:
            continue
        lines.append(f"    - `{mode}` ran beside an eager run of {render.ms(own)} ms, against "
                     f"the eager row's {render.ms(ref)} ms: its {r['speedup']:.2f}x is over "
                     f"that {'slower' if own > ref else 'faster'} eager, not over the eager row.")
    return lines


def modes_reading(doc: dict[str, Any]) -> str:
    """Per model and batch: the fastest mode, whether max-autotune-no-cudagraphs pays over
    default, and whether max-autotune pays over reduce-overhead (both replay CUDA graphs, so
    what it adds is the tuning)."""
    groups: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
    for r in doc["rows"]:
        if r["status"] in GOOD and r["latency_ms"]:
            groups.setdefault((r["model"], r["batch_size"]), {})[r["mode"]] = r
    lines, split = [], False
    for (model, bs), rows in groups.items():
        compiled = {m: r for m, r in rows.items() if m != "eager"}
        if not compiled:
            continue
        best = min(compiled.values(), key=lambda r: r["latency_ms"]["median"])
        line = (f"- **{model}, batch {bs}**: fastest is `{best['mode']}` "
                f"({best['speedup']:.2f}x over eager)")
        for tuned_mode, base_mode in (("max-autotune-no-cudagraphs", "default"),
                                      ("max-autotune", "reduce-overhead")):
            tuned, base = rows.get(tuned_mode), rows.get(base_mode)
            if not (tuned and base):
                continue
            verdict, figures = _against(tuned, base)
            split = split or verdict.startswith("cannot")
            line += (f"; `{tuned_mode}` against `{base_mode}`: {verdict} ({figures}, compiling in "
                     f"{render.num(tuned['compile_empty_s'], '.0f')} s against "
                     f"{render.num(base['compile_empty_s'], '.0f')} s with an empty cache)")
            t, d = tuned["compile_empty_s"], base["compile_empty_s"]
            if t is not None and d is not None and t < UNTUNED * d:
                line += ": it compiled about as fast, so it found little to tune"
        lines.append(line + ".")
        lines += _own_eager(model, bs, rows)
    if split:
        lines.append("- Where two modes cannot be ranked, the eager runs beside them ran at "
                     "different speeds (the eager row and each mode's speedup say how far "
                     "apart): the host or the GPU was not the same in their processes, and "
                     "the difference between the two modes is smaller than that.")
    seen = {r["mode"] for r in doc["rows"]}
    absent = [m for m in MODE_ORDER if m not in seen]
    if absent and lines:
        lines.append("- Not in this file yet: " + ", ".join(f"`{m}`" for m in absent)
                     + " (they take minutes per model to compile; recorded by commands of "
                     "their own).")
    return "\n".join(lines) or "No mode finished on this run."


def hazards(doc: dict[str, Any]) -> str:
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


def hazards_reading(doc: dict[str, Any]) -> str:
    """What the hazard runs showed, in words computed from their outcomes."""
    rows = {(r["hazard"], r["variant"]): r for r in doc["rows"]}
    lines = []
    kept = [v for (h, v), r in rows.items()
            if h == "output read after the next replay" and r["outcome"] == "correct"]
    lost = [v for (h, v), r in rows.items()
            if h == "output read after the next replay" and r["outcome"] != "correct"]
    if kept or lost:
        lines.append("- Reading the first answer after the second call: correct with "
                     f"{', '.join(f'`{v}`' for v in kept) or 'no variant'}; "
                     f"{', '.join(f'`{v}`' for v in lost) or 'no variant'} lost it.")
    if "cudagraph_mark_step_begin()" in lost:
        lines.append("- Marking a step tells torch that the outputs before it are no longer "
                     "needed: the next replay may then write over them, so it does not keep an "
                     "answer that is still in use. Only a copy does.")
    skips = {v: r for (h, v), r in rows.items() if h == "graph skipped"}
    if skips:
        how = {o: [v for v, r in skips.items() if r["outcome"] == o]
               for o in ("skipped", "not skipped", "wrong values", "error")}
        parts = [f"{o}: {', '.join(vs)}" for o, vs in how.items() if vs]
        lines.append("- Under this torch, " + "; ".join(parts) + ". A case not skipped was "
                     "recorded and replayed and still answered as eager did.")
    held = {v: r["held_mb"] for (h, v), r in rows.items() if r.get("held_mb") is not None}
    if "reduce-overhead" in held and "default" in held:
        lines.append(f"- Between calls, `reduce-overhead` keeps {held['reduce-overhead']:.0f} MB "
                     f"reserved against `default`'s {held['default']:.0f} MB: the graph's pool "
                     "stays with the graph.")
    return "\n".join(lines)


def report(doc: dict[str, Any]) -> str:
    """The tables and readings of a document of any of the production kinds."""
    kind = doc["kind"]
    if kind == "production-startup":
        return startup(doc) + "\n\n" + startup_reading(doc) + "\n\n" + startup_detail(doc)
    if kind == "production-stream":
        return stream(doc) + "\n\n" + stream_reading(doc)
    if kind == "production-modes":
        return modes(doc) + "\n\n" + modes_reading(doc)
    return hazards(doc) + "\n\n" + hazards_reading(doc)
