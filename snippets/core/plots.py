"""What every plot is drawn with: a matplotlib figure as an inline SVG that reads on a light and a
dark page, in a ``<figure>`` with its text alternative."""

from __future__ import annotations

import html
import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# Drawn with, then replaced by ``currentColor`` in the SVG: no series uses this colour.
INK = "#010203"
# Hues at 3:1 contrast (WCAG's minimum for graphics) on white and on slate (#1e2029); the first
# three stay apart for the common colour blindnesses.
PALETTE = ("#4e8ff0", "#d97706", "#d9539a", "#2f9e6e", "#9c7cf0")
# 500 px wide; on a 390 px phone 10.5 pt text is still 10 px high.
WIDTH_IN = 5.2
FONT_PT = 10.5


def rc() -> dict[str, Any]:
    """The settings every figure is drawn under."""
    return {
        "font.size": FONT_PT, "font.family": "DejaVu Sans",  # shipped with matplotlib
        "text.color": INK, "axes.labelcolor": INK, "axes.edgecolor": INK,
        "xtick.color": INK, "ytick.color": INK, "grid.color": INK, "grid.alpha": 0.18,
        "axes.spines.top": False, "axes.spines.right": False, "legend.frameon": False,
        "svg.fonttype": "path",  # glyphs as shapes: the same on every reader's fonts
        "figure.dpi": 72,  # SVG points map one to one to the size the figure is laid out in
    }


@contextmanager
def figure(height_in: float, *, ncols: int = 1, sharey: bool = False) -> Iterator[tuple[Any, Any]]:
    """A figure of ``ncols`` axes under the guide's settings: ``with figure(3) as (fig, ax)``."""
    import matplotlib

    matplotlib.use("Agg")  # no display: a build machine has none
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(rc()):
        fig, ax = plt.subplots(1, ncols, figsize=(WIDTH_IN, height_in), sharey=sharey,
                               layout="constrained")
        try:
            yield fig, ax
        finally:
            plt.close(fig)


def svg(fig: Any, name: str) -> str:
    """The figure as inline SVG: ``currentColor`` for the ink, ids prefixed with ``name`` so two
    plots on a page do not clash."""
    import matplotlib

    buffer = io.StringIO()
    # hashsalt and no date: the same figure gives the same bytes at every build
    with matplotlib.rc_context({"svg.hashsalt": name}):
        fig.savefig(buffer, format="svg", transparent=True, metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    text = text.replace(INK, "currentColor")
    prefix = re.sub(r"[^a-z0-9]+", "-", name.lower())
    text = re.sub(r'id="([^"]+)"', rf'id="{prefix}-\1"', text)
    text = re.sub(r'(href="#|url\(#)([^")]+)', rf"\1{prefix}-\2", text)
    return re.sub(r"\n\s*\n", "\n", text).strip()  # a blank line would end the HTML block


def html_figure(svg_text: str, alt: str, caption: str = "") -> str:
    """An inline plot with its text alternative and an optional short caption."""
    svg_text = svg_text.replace("<svg ", f'<svg role="img" aria-label="{html.escape(alt)}" ', 1)
    shown = f"<figcaption>{html.escape(caption)}</figcaption>\n" if caption else ""
    return f'<figure class="plot">\n{svg_text}\n{shown}</figure>'


def legend_below(fig: Any, ncols: int) -> None:
    """The figure's legend under its axes: it never covers a point, and a phone keeps it."""
    fig.legend(loc="outside lower center", ncols=ncols, handlelength=1.2, columnspacing=1.2)
