"""The tutorial this guide grew from, held to the benchmark's numbers.

The tutorial gives a typical speedup per model and batch size, measured with
``mode="max-autotune-no-cudagraphs"`` in bf16 on an NVIDIA GPU, and recommends that mode for
production. ``verdicts`` sets each claimed range beside what every mode measured in one run: a
range holds where the measured speedup, give or take half its interquartile range, meets it.
``verdicts_over_runs`` does the same over every recorded run, since a single run's speedup moves
from run to run: the verdict is the median's, beside the runs' range and how many fell within.
"""

from __future__ import annotations

import statistics
from typing import Any

from snippets.core import render

# (model, batch) -> the tutorial's "typical speedup", low and high: its table "What you will
# typically see" (ResNet-50 1.3-2x at batch 1, 1.1-1.4x at 32; the transformer 1.5-2.5x at 1,
# 1.2-1.6x at 32).
CLAIMED: dict[tuple[str, int], tuple[float, float]] = {
    ("resnet50", 1): (1.3, 2.0),
    ("resnet50", 32): (1.1, 1.4),
    ("transformer", 1): (1.5, 2.5),
    ("transformer", 32): (1.2, 1.6),
}
TUTORIAL_MODE = "max-autotune-no-cudagraphs"  # the mode the tutorial measured and recommends


def verdict(value: float, spread: float, low: float, high: float) -> str:
    """``holds`` if [value - spread/2, value + spread/2] meets [low, high], else higher/lower."""
    if value - spread / 2 > high:
        return "higher"
    if value + spread / 2 < low:
        return "lower"
    return "holds"


def cell(row: dict[str, Any] | None, low: float, high: float) -> str:
    if row is None or row.get("speedup") is None or row["status"] not in ("ok", "noisy"):
        return "not measured"
    value, spread = row["speedup"], row.get("speedup_iqr") or 0.0
    return f"{value:.2f}x ± {spread / 2:.2f}: {verdict(value, spread, low, high)}"


def verdicts(doc: dict[str, Any]) -> str:
    """A row per claim: the claimed range, then each mode's measured speedup and its verdict,
    the tutorial's own mode last."""
    rows = {(r["model"], r["batch_size"], r["mode"]): r for r in doc["rows"]}
    modes = [m for m in dict.fromkeys(r["mode"] for r in doc["rows"]) if m != "eager"]
    if TUTORIAL_MODE in modes:
        modes.remove(TUTORIAL_MODE)
    modes.append(TUTORIAL_MODE)
    head = ("Model · batch", "Claimed", *(f"`{m}`" for m in modes))
    body = []
    for (model, bs), (low, high) in CLAIMED.items():
        body.append([f"{model} · {bs}", f"{low:g}x to {high:g}x",
                     *(cell(rows.get((model, bs, m)), low, high) for m in modes)])
    return render.markdown_table(head, body) + "\n\n" + summary(body, modes)


def verdicts_over_runs(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """A row per claim: each mode's median speedup over ``runs`` (label, document), its lowest
    and highest, how many runs fell within the claim, and the median's verdict; then one line per
    mode, as ``verdicts``."""
    seen: dict[tuple[str, int, str], list[float]] = {}
    modes: list[str] = []
    for _, doc in runs:
        for r in doc["rows"]:
            if r["mode"] != "eager" and r["mode"] not in modes:
                modes.append(r["mode"])
            if r.get("speedup") is not None and r["status"] in ("ok", "noisy"):
                seen.setdefault((r["model"], r["batch_size"], r["mode"]), []).append(r["speedup"])
    if TUTORIAL_MODE in modes:
        modes.remove(TUTORIAL_MODE)
    modes.append(TUTORIAL_MODE)

    def cell_of(values: list[float] | None, low: float, high: float) -> str:
        if not values:
            return "not measured"
        mid = statistics.median(values)
        within = sum(low <= v <= high for v in values)
        return (f"{mid:.2f}x ({min(values):.2f}–{max(values):.2f}; {within} of {len(values)} "
                f"runs within): {verdict(mid, 0.0, low, high)}")

    # A mode no run measured gets a line, not a column: a column of "not measured" under a long
    # mode name is what pushed this table past a desktop page.
    shown = [m for m in modes if any(k[2] == m for k in seen)]
    head = ("Model · batch", "Claimed", *(f"`{m}`" for m in shown))
    body = [[f"{model} · {bs}", f"{low:g}x to {high:g}x",
             *(cell_of(seen.get((model, bs, m)), low, high) for m in shown)]
            for (model, bs), (low, high) in CLAIMED.items()]
    missing = [f"- `{m}`: not in any recorded run of this matrix." for m in modes if m not in shown]
    # Left-aligned: the cells are sentences that wrap (a right-aligned cell stays on one line).
    return (render.markdown_table(head, body, align="l" * len(head))
            + "\n\nEach cell: the median speedup over the "
            f"{len(runs)} recorded runs, their lowest to highest and how many fell within the "
            "claimed range in brackets, and the verdict of the median. By the median:\n\n"
            + "\n".join([summary(body, shown), *missing]))


def tutorial_mode(doc: dict[str, Any]) -> str:
    """The tutorial's own mode against its claims, from a production modes run (a
    ``production-modes`` document: each mode timed in fresh processes beside an eager run of its
    own). One run, so each cell is its speedup give or take half its IQR, as ``verdicts``."""
    rows = {(r["model"], r["batch_size"]): r.get("empty") for r in doc["rows"]
            if r["mode"] == TUTORIAL_MODE}
    if not rows:
        return f"`{TUTORIAL_MODE}` is not in the recorded modes run yet."
    body = [[f"{model} · {bs}", f"{low:g}x to {high:g}x", cell(rows.get((model, bs)), low, high)]
            for (model, bs), (low, high) in CLAIMED.items()]
    head = ("Model · batch", "Claimed", f"`{TUTORIAL_MODE}`")
    return render.markdown_table(head, body) + "\n\n" + summary(body, [TUTORIAL_MODE])


def summary(body: list[list[str]], modes: list[str]) -> str:
    """One line per mode: where its measured speedups meet, beat or miss the claimed ranges."""
    out = []
    for i, mode in enumerate(modes, start=2):
        by: dict[str, list[str]] = {}
        for row in body:
            by.setdefault(row[i].rpartition(": ")[2], []).append(row[0])
        words = {"holds": "within the claim", "higher": "above it", "lower": "below it",
                 "not measured": "not measured"}
        out.append(f"- `{mode}`: " + "; ".join(
            f"{words[v]} for {', '.join(names)}" for v, names in by.items()) + ".")
    return "\n".join(out)
