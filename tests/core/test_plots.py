"""snippets.core.plots: inline SVG that follows the page's colours, with its text alternative."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from snippets.core import plots

ROOT = Path(__file__).resolve().parents[2]


def _drawn(name: str) -> str:
    with plots.figure(2) as (fig, ax):
        ax.plot([0, 1], [1, 2], color=plots.PALETTE[0], label="a line")
        ax.set_xlabel("x")
        plots.legend_below(fig, 1)
        return plots.svg(fig, name)


def test_svg_is_inline_in_current_color_with_ids_of_its_own() -> None:
    svg = _drawn("first plot")
    assert svg.startswith("<svg ") and svg.endswith("</svg>")
    assert plots.INK not in svg and "currentColor" in svg
    assert "<?xml" not in svg and "<!--" not in svg
    assert "\n\n" not in svg  # a blank line would end the HTML block in Markdown
    ids = [part.split('"')[0] for part in svg.split(' id="')[1:]]
    assert ids and all(i.startswith("first-plot-") for i in ids)
    assert "#first-plot-" in svg  # references follow their ids


def test_the_same_figure_gives_the_same_bytes() -> None:
    assert _drawn("again") == _drawn("again")


def test_html_figure_carries_its_text_alternative() -> None:
    out = plots.html_figure('<svg viewBox="0 0 1 1"></svg>', 'speed "up"', "a caption")
    assert out.startswith('<figure class="plot">')
    assert '<svg role="img" aria-label="speed &quot;up&quot;" ' in out
    assert "<figcaption>a caption</figcaption>" in out
    assert "<figcaption>" not in plots.html_figure("<svg></svg>", "speed")  # the page says it


def test_importing_the_plot_modules_does_not_import_matplotlib() -> None:
    code = ("import sys, snippets.core.plots, snippets.bench.plots, snippets.dynamic.plots; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert out.stdout.strip() == "False"
