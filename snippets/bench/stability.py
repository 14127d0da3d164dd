"""How far recorded runs of the same benchmark agree, and what the machine did while they ran.

Pure rendering over recorded results documents: the benchmark page uses it to show, from the
files themselves, which numbers repeat from run to run and which move with the host CPU.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from snippets.core import render, results

Key = tuple[str, int, str]


def load_runs(folder: Path, names: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """(label, document) for each named file of ``folder`` that exists, in the order given."""
    out = []
    for name in names:
        path = folder / name
        if path.exists():
            out.append((name.removesuffix(".json"), results.load(path)))
    return out


def _rows(doc: dict[str, Any]) -> dict[Key, dict[str, Any]]:
    return {(r["model"], r["batch_size"], r["mode"]): r for r in doc["rows"]}


def _per_run(runs: list[tuple[str, dict[str, Any]]], keys: list[Key]) -> str:
    """Every run's speedup for every compiled configuration: the evidence behind the summary."""
    tables = [_rows(doc) for _, doc in runs]
    head = ("Model · batch · mode", *(label for label, _ in runs))
    return render.markdown_table(head, (
        [" · ".join(map(str, key)),
         *(render.num(t.get(key, {}).get("speedup"), ".2f") for t in tables)] for key in keys))


def speedup_spread(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """One line per compiled configuration: the lowest, median and highest speedup over all
    runs and highest over lowest; every run's own value in a block that opens."""
    tables = [_rows(doc) for _, doc in runs]
    keys = [k for k in tables[0] if k[2] != "eager"] if tables else []
    head = ("Model · batch · mode", "Runs", "Lowest", "Median", "Highest", "Highest/lowest")
    body = []
    for key in keys:
        present = sorted(v for t in tables if (v := t.get(key, {}).get("speedup")))
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
    """Pearson correlation of a row's samples with the host canary of the same rounds: near 1,
    the row's latency moved with the host CPU's speed."""
    samples = (row.get("latency_ms") or {}).get("samples")
    canary = (row.get("host_canary_us") or {}).get("samples")
    if not samples or not canary or len(samples) != len(canary) or len(set(canary)) < 2:
        return "–"
    return f"{statistics.correlation(samples, canary):.2f}"


def host_evidence(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """Per run and model group: the spread of eager and of a CUDA-graph replay, beside how slow
    the host ran and whether eager moved with it; what else the machine reported (hypervisor
    steal, the GPU's SM clock) and the default mode in a block that opens."""
    key_head = ("Run · model · batch", "Eager IQR %", "reduce-overhead IQR %",
                "Host canary median/best", "Corr. eager ~ canary")
    full_head = ("Run · model · batch", "default IQR %", "CPU steal %", "SM clock MHz",
                 "Corr. default ~ canary")
    key, full = [], []
    for label, doc in runs:
        rows = _rows(doc)
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
            + render.details("The default mode, hypervisor steal and the SM clock",
                             render.markdown_table(full_head, full)))


def spells(doc: dict[str, Any], model: str, batch_size: int) -> str:
    """The samples of one group, round by round, summarised as runs of slow and normal rounds:
    a spell shows as a stretch where every variant without CUDA graphs slows down together."""
    rows = _rows(doc)
    eager = rows[(model, batch_size, "eager")]["latency_ms"]["samples"]
    fastest = min(eager)
    slow = [s > 1.5 * fastest for s in eager]
    stretches, start = [], 0
    for i in range(1, len(slow) + 1):
        if i == len(slow) or slow[i] != slow[start]:
            stretches.append((start, i - 1, slow[start]))
            start = i
    modes = [m for (mm, b, m) in rows if mm == model and b == batch_size]
    body = []
    for first, last, is_slow in stretches:
        cells = [f"{first + 1}–{last + 1} · {'slow spell' if is_slow else 'normal'}"]
        for mode in modes:
            part = rows[(model, batch_size, mode)]["latency_ms"]["samples"][first:last + 1]
            cells.append(f"{statistics.median(part):.3g} ms")
        body.append(cells)
    return render.markdown_table(("Rounds · host state", *modes), body)


# ---- which runs ---------------------------------------------------------------------------------

def recorded_gpu_runs(results_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every recorded bench run of the newest GPU run folder: the page's run and its repeat
    first, then the runs kept as evidence under ``noise/``, in the order they were made."""
    newest = [p for p, d in results.recorded_runs(results_dir, "bench")
              if results.device_type_of(d) == "cuda"]
    if not newest:
        return []
    folder = newest[0].parent
    extra = sorted(folder.glob("noise/*.json"), key=lambda p: results.load(p)["provenance"]["date"])
    names = ["bench.json", "bench-repeat.json", *(str(p.relative_to(folder)) for p in extra)]
    return load_runs(folder, names)


def runs_stamp(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """One stamp for a block drawn from several runs: the device, the dates and the commits."""
    prov = runs[0][1]["provenance"]
    dates = sorted(d["provenance"]["date"][:10] for _, d in runs)
    commits = ", ".join(dict.fromkeys(d["provenance"]["commit"] or "unknown" for _, d in runs))
    return (f"recorded: {prov['device']} · torch {prov['torch']} · {len(runs)} runs, "
            f"{dates[0]} to {dates[-1]} · commits {commits}")


def evidence(which: str, runs: list[tuple[str, dict[str, Any]]]
             ) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """One evidence block of the benchmark page, "spread", "host" or "spells": its Markdown and
    the runs it was drawn from (for its stamp)."""
    if which == "spread":
        return speedup_spread(runs), runs
    if which == "host":
        shown = [r for r in runs if r[1]["rows"][0].get("host_canary_us")
                 or r[1]["rows"][0].get("cpu_steal_pct") is not None]
        return host_evidence(shown), runs
    if which != "spells":
        raise ValueError(f"evidence {which!r}: expected spread, host or spells")
    # The noisiest eager group of all runs, round by round.
    label, doc, row = max(
        ((label, doc, r) for label, doc in runs for r in doc["rows"]
         if r["mode"] == "eager" and r.get("latency_ms")),
        key=lambda t: t[2]["latency_ms"]["iqr"] / t[2]["latency_ms"]["median"])
    model, bs = row["model"], row["batch_size"]
    return f"Run `{label}`, {model} at batch {bs}:\n\n" + spells(doc, model, bs), [(label, doc)]
