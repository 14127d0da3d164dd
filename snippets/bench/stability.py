"""How far recorded runs of the same benchmark agree, and what the machine did while they ran.

Pure rendering over recorded results documents: the benchmark page uses it to show, from the
files themselves, which numbers repeat from run to run and which move with the host CPU.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from snippets.core import results

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


def speedup_spread(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """One line per compiled configuration: its speedup in every run, and max over min."""
    labels = [label for label, _ in runs]
    tables = [_rows(doc) for _, doc in runs]
    keys = [k for k in tables[0] if k[2] != "eager"] if tables else []
    head = ["Model", "Batch", "Mode", *labels, "Max/min"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i < 3 else "--:" for i in range(len(head))) + "|"]
    for key in keys:
        values = [t.get(key, {}).get("speedup") for t in tables]
        present = [v for v in values if v]
        spread = f"{max(present) / min(present):.2f}" if len(present) > 1 else "–"
        cells = [key[0], str(key[1]), key[2],
                 *(f"{v:.2f}x" if v else "–" for v in values), spread]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


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
    """Per run and model group: the spread of eager and of a CUDA-graph replay, beside what the
    machine reported (hypervisor steal, the GPU's SM clock, the host canary's slowdown)."""
    head = ["Run", "Model", "Batch", "Eager IQR %", "default IQR %", "reduce-overhead IQR %",
            "CPU steal %", "SM clock MHz", "Host canary median/best",
            "Corr. eager ~ canary", "Corr. default ~ canary"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i < 3 else "--:" for i in range(len(head))) + "|"]
    for label, doc in runs:
        rows = _rows(doc)
        for (model, bs, mode), eager in rows.items():
            if mode != "eager":
                continue
            steal = eager.get("cpu_steal_pct")
            clock = eager.get("sm_clock_mhz") or {}
            canary = eager.get("host_canary_us") or {}
            slow = (f"{canary['median'] / canary['best']:.2f}"
                    if canary.get("best") else "not recorded")
            cells = [label, model, str(bs), _pct(eager),
                     _pct(rows.get((model, bs, "default"), {})),
                     _pct(rows.get((model, bs, "reduce-overhead"), {})),
                     "–" if steal is None else f"{steal:.2f}",
                     f"{clock['min']}–{clock['max']}" if clock else "–", slow,
                     _corr(eager), _corr(rows.get((model, bs, "default"), {}))]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


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
    head = ["Rounds", "Host state", *(m for (mm, b, m) in rows if mm == model and b == batch_size)]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i < 2 else "--:" for i in range(len(head))) + "|"]
    for first, last, is_slow in stretches:
        cells = [f"{first + 1}–{last + 1}", "slow spell" if is_slow else "normal"]
        for (mm, b, _mode), row in rows.items():
            if mm == model and b == batch_size:
                part = row["latency_ms"]["samples"][first:last + 1]
                cells.append(f"{statistics.median(part):.3g} ms")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


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
