"""The benchmark's run-to-run evidence drawn as tables, from ``stability``'s readings."""

from __future__ import annotations

import statistics
from typing import Any

from snippets.bench import stability
from snippets.bench.stability import Key, Runs, by_key
from snippets.core import render, stamps


def _per_run(runs: list[tuple[str, dict[str, Any]]], keys: list[Key]) -> str:
    """Every run's speedup for every compiled configuration."""
    tables = [by_key(doc) for _, doc in runs]
    head = ("Model · batch · mode", *(label for label, _ in runs))
    return render.markdown_table(head, (
        [" · ".join(map(str, key)),
         *(render.num(t.get(key, {}).get("speedup"), ".2f") for t in tables)] for key in keys))


def speedup_spread(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """Per compiled configuration, its speedup over the runs; each run's in a block that opens."""
    tables = [by_key(doc) for _, doc in runs]
    keys = [k for k in tables[0] if k[2] != "eager"] if tables else []
    head = ("Model · batch · mode", "Runs", "Lowest", "Median", "Highest", "Highest/lowest")
    body = []
    for key in keys:
        present = stability.speedups(tables, key)
        spread = f"{present[-1] / present[0]:.2f}" if len(present) > 1 else "–"
        body.append([" · ".join(map(str, key)), len(present),
                     *(f"{v:.2f}x" for v in (present[0], statistics.median(present),
                                             present[-1])), spread])
    return (render.markdown_table(head, body) + "\n\n"
            + render.details("The speedup in every run", _per_run(runs, keys)))


def _pct(row: dict[str, Any]) -> str:
    lat = row.get("latency_ms")
    return f"{100 * lat['iqr'] / lat['median']:.1f}" if lat else "–"


def _corr(row: dict[str, Any]) -> str:
    return render.num(stability.correlation(row), ".2f")


def host_evidence(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """Per run and group: eager's and a replay's spread beside the host's speed; the default
    mode, hypervisor steal and SM clock in a block that opens."""
    key_head = ("Run · model · batch", "Eager IQR %", "reduce-overhead IQR %",
                "Host canary median/best", "Corr. eager ~ canary")
    full_head = ("Run · model · batch", "default IQR %", "CPU steal %", "SM clock MHz",
                 "Corr. default ~ canary")
    key, full = [], []
    for label, doc in runs:
        rows = by_key(doc)
        for (model, bs, mode), eager in rows.items():
            if mode != "eager":
                continue
            name = f"{label} · {model} · {bs}"
            steal = eager.get("cpu_steal_pct")
            clock = eager.get("sm_clock_mhz") or {}
            canary = eager.get("host_canary_us") or {}
            slow = (f"{canary['median'] / canary['best']:.2f}"
                    if canary.get("best") else "not recorded")
            key.append([name, _pct(eager), _pct(rows.get((model, bs, "reduce-overhead"), {})),
                        slow, _corr(eager)])
            full.append([name, _pct(rows.get((model, bs, "default"), {})),
                         render.num(steal, ".2f"),
                         f"{clock['min']}–{clock['max']}" if clock else "–",
                         _corr(rows.get((model, bs, "default"), {}))])
    return (render.markdown_table(key_head, key) + "\n\n"
            + render.details("Default mode, steal, SM clock",
                             render.markdown_table(full_head, full)))


def spells(doc: dict[str, Any], model: str, batch_size: int) -> str:
    """One group's rounds as stretches in one host state (``stability.round_states``)."""
    rows = by_key(doc)
    modes = [m for (mm, b, m) in rows if mm == model and b == batch_size]
    states = stability.round_states(rows, modes, model, batch_size)
    stretches, start = [], 0
    for i in range(1, len(states) + 1):
        if i == len(states) or states[i] != states[start]:
            stretches.append((start, i - 1, states[start]))
            start = i
    body = []
    for first, last, state in stretches:
        where = f"{first + 1}" if first == last else f"{first + 1}–{last + 1}"
        cells = [f"{where} · {state}"]
        for mode in modes:
            part = rows[(model, batch_size, mode)]["latency_ms"]["samples"][first:last + 1]
            cells.append(f"{statistics.median(part):.3g} ms")
        body.append(cells)
    return render.markdown_table(("Rounds · host state", *modes), body)


def widest(runs: Runs) -> str:
    """Per mode, the configuration whose speedup moved most from run to run."""
    return render.markdown_table(("Mode", "Highest/lowest", "Widest for", "Lowest", "Highest"), (
        (f"`{w.mode}`", f"{w.ratio:.2f}", f"{w.model} · {w.batch}", f"{w.speedup.low:.2f}x",
         f"{w.speedup.high:.2f}x") for w in stability.widest(runs)), left=1)


def correlations(runs: Runs) -> str:
    """Eager's correlation with the host canary per model, lowest to highest over the runs."""
    return render.markdown_table(("Model", "Correlation"), (
        (c.model, render.span((c.corr.low, c.corr.high), ".2f"))
        for c in stability.correlations(runs)))


def runs_stamp(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """One stamp for a block drawn from several runs: the device, the dates and the commits."""
    prov = runs[0][1]["provenance"]
    shared = [prov["device"], f"torch {prov['torch']}"]
    return stamps.several([d for _, d in runs], "recorded", shared, render.count(len(runs), "run"))


def evidence(which: str, runs: Runs) -> tuple[str, Runs]:
    """One evidence block by name, and the runs it was drawn from (for its stamp)."""
    if which == "spread":
        return speedup_spread(runs), runs
    if which == "widest":
        return widest(runs), runs
    if which in ("host", "correlations"):
        shown = stability.host_runs(runs)
        return (host_evidence if which == "host" else correlations)(shown), shown
    if which == "figures":
        return figures(runs), runs
    if which == "claims":
        from snippets.bench import claims  # the tutorial's claims, held to every run

        return claims.verdicts_over_runs(runs), runs
    if which != "spells":
        raise ValueError(f"unknown evidence {which!r}")
    # The noisiest eager group of all runs, round by round; the page names it from ``of``.
    group = stability.noisiest(runs)
    doc = dict(runs)[group.label]
    return spells(doc, group.model, group.batch), [(group.label, doc)]


def figures(runs: Runs) -> str:
    """Each configuration's one figure: the median speedup over the runs, lowest to highest."""
    return render.markdown_table(("Model · batch · mode", "Median", "Lowest to highest"), (
        [f"{f.model} · {f.batch} · {f.mode}", f"{f.median:.2f}x",
         render.span((f.speedup.low, f.speedup.high), ".2f", "x")]
        for f in stability.figures(runs)))
