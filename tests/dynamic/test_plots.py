"""snippets.dynamic.plots over a recorded run: one bar per strategy, named in its text."""

from __future__ import annotations

from pathlib import Path

from snippets.core import results
from snippets.dynamic import plots

ROOT = Path(__file__).resolve().parents[2]


def test_stalls_names_the_longest_and_shortest_strategy() -> None:
    doc = results.load(ROOT / "docs/results/cpu-amd-epyc_torch-2.14.1/dynamic-shapes.json")
    out = plots.stalls(doc)
    most = max(doc["rows"], key=lambda r: r["stall_total_ms"])
    assert f"Recompile stalls of {len(doc['rows'])} strategies" in out
    assert f"longest in total for {most['strategy']}" in out
