"""snippets.dynamic.plots over a recorded run: one bar per strategy, a segment per compile."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.axes import Axes

from snippets.core import results
from snippets.dynamic import plots
from tests import drawn

ROOT = Path(__file__).resolve().parents[2]


def test_stalls_draws_a_segment_per_compile(monkeypatch) -> None:
    bars = drawn.calls(monkeypatch, Axes, "barh")
    doc = results.load(ROOT / "docs/results/cpu-amd-epyc_torch-2.14.1/dynamic-shapes.json")
    out = plots.stalls(doc)
    assert out.count("<svg") == 1 and 'aria-label="' in out
    # each strategy's bar: as many segments as calls that compiled, as long as its stall
    segments: dict[int, list[float]] = {}
    for (y, width), _ in bars:
        segments.setdefault(y, []).append(width)
    for y, row in enumerate(doc["rows"]):
        compiled = [c["ms"] / 1e3 for c in row["calls"] if c["compiled"]]
        assert segments.get(y, []) == pytest.approx(compiled)


def test_every_note_and_label_ends_inside_the_figure(monkeypatch) -> None:
    # The longest bar's note ("8 compiles, 3 shapes eager") was cut off at the figure's edge.
    from snippets.core import plots as core_plots

    overflow: dict[str, list[str]] = {}
    original = core_plots.svg

    def check(fig, name):  # as the figure is saved: laid out, still open
        fig.canvas.draw()
        texts = [t for ax in fig.axes for t in [*ax.texts, ax.xaxis.label]]
        overflow[name] = [t.get_text() for t in texts
                          if t.get_window_extent().x1 > fig.bbox.width + 1]  # a pixel of rounding
        return original(fig, name)

    monkeypatch.setattr(core_plots, "svg", check)
    for run in ("cpu-amd-epyc_torch-2.14.1", "nvidia-h200_torch-2.11.0"):
        plots.stalls(results.load(ROOT / f"docs/results/{run}/dynamic-shapes.json"))
    assert len(overflow) == 2 and not any(overflow.values()), overflow
