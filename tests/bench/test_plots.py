"""snippets.bench.plots over real runs: a figure per run, one point per valid row, never timings."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from snippets.bench import plots
from snippets.core import results

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "docs/results/nvidia-h200_torch-2.11.0"


def test_speedup_plots_every_valid_compiled_row(cpu_bench_run: Path) -> None:
    doc = json.loads(cpu_bench_run.read_text())
    out = plots.speedup(doc)
    assert out.startswith('<figure class="plot">') and 'role="img"' in out
    # The text alternative names what was drawn and the span of the speedups drawn.
    alt = html.unescape(re.search(r'aria-label="([^"]*)"', out).group(1))
    assert alt.startswith("Speedup over eager of tests.site_models:mlp")
    (speedup,) = [r["speedup"] for r in doc["rows"] if r["mode"] == "default"]
    assert alt.split(" at batch ")[1].startswith("1, in default: from ")
    assert alt.split(": from ")[1].startswith(f"{speedup:.2f}x to {speedup:.2f}x")


def test_speedup_draws_nothing_when_no_row_is_valid(cpu_bench_run: Path) -> None:
    doc = json.loads(cpu_bench_run.read_text())
    for row in doc["rows"]:
        row["status"] = "mismatch"  # a fast wrong answer is not a result, and not a point
    assert plots.speedup(doc) == ""


def test_break_even_has_a_panel_per_model() -> None:
    cold = results.load(H200 / "noise/first-1.json")
    warm = results.load(H200 / "noise/first-2.json")
    out = plots.break_even(cold, warm)
    alt = html.unescape(out.split('aria-label="')[1].split('"')[0])  # the text read out
    # each model with a compile time in the cold run, by name
    models = {r["model"] for r in cold["rows"] if r.get("compile_s")}
    assert models == {"resnet50", "transformer"} and all(m in alt for m in models)
    assert out.count("<svg") == 1
