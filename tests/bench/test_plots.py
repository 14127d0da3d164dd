"""snippets.bench.plots over real runs: a figure per run, one point per valid row, never timings."""

from __future__ import annotations

import json
import re
from pathlib import Path

from matplotlib.axes import Axes

from snippets.bench import plots
from snippets.core import results
from tests import drawn

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "docs/results/nvidia-h200_torch-2.11.0"


def test_speedup_plots_every_valid_compiled_row(cpu_bench_run: Path, monkeypatch) -> None:
    bars = drawn.calls(monkeypatch, Axes, "errorbar")
    doc = json.loads(cpu_bench_run.read_text())
    out = plots.speedup(doc)
    assert out.startswith('<figure class="plot">') and 'role="img"' in out
    assert re.search(r'aria-label="[^"]+"', out)  # a text alternative, read in its place
    # one point per compiled row that ran and computed eager's answer, at its speedup
    assert [x for (xs, _), _ in bars for x in xs] == [
        r["speedup"] for r in doc["rows"] if r["mode"] == "default"]


def test_speedup_draws_nothing_when_no_row_is_valid(cpu_bench_run: Path) -> None:
    doc = json.loads(cpu_bench_run.read_text())
    for row in doc["rows"]:
        row["status"] = "mismatch"  # a fast wrong answer is not a result, and not a point
    assert plots.speedup(doc) == ""


def test_break_even_has_a_panel_per_model(monkeypatch) -> None:
    titles = drawn.calls(monkeypatch, Axes, "set_title")
    cold = results.load(H200 / "noise/first-1.json")
    warm = results.load(H200 / "noise/first-2.json")
    out = plots.break_even(cold, warm)
    assert out.count("<svg") == 1 and re.search(r'aria-label="[^"]+"', out)
    # a panel per model with a compile time in the cold run, titled by its name
    assert [t for (t, *_), _ in titles] == ["resnet50", "transformer"] == list(dict.fromkeys(
        r["model"] for r in cold["rows"] if r.get("compile_s") and r["mode"] != "eager"))
