"""snippets.dynamic.plots over a recorded run: one bar per strategy, named in its text."""

from __future__ import annotations

import html
from pathlib import Path

from snippets.core import results
from snippets.dynamic import plots

ROOT = Path(__file__).resolve().parents[2]


def test_stalls_names_the_longest_and_shortest_strategy() -> None:
    doc = results.load(ROOT / "docs/results/cpu-amd-epyc_torch-2.14.1/dynamic-shapes.json")
    out = plots.stalls(doc)
    most = max(doc["rows"], key=lambda r: r["stall_total_ms"])
    least = min(doc["rows"], key=lambda r: r["stall_total_ms"])
    alt = html.unescape(out.split('aria-label="')[1].split('"')[0])  # the text read out
    # the count of strategies and the two it names, the longest first, with their compile counts
    assert str(len(doc["rows"])) in alt and most != least
    assert alt.index(most["strategy"]) < alt.index(least["strategy"])
    assert all(str(r["compiles"]) in alt for r in (most, least))


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
