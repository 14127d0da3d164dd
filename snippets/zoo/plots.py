"""The zoo page's plot: each model's speedup against eager's own latency, a panel per mode."""

from __future__ import annotations

from typing import Any

from snippets.core import plots
from snippets.core import rows as typed
from snippets.zoo import findings


def _log_axes(ax: Any) -> None:
    """Both axes logarithmic, with plain labels at 1-2-5 (matplotlib's powers of ten overlap)."""
    from matplotlib import ticker

    for axis, scale in ((ax.xaxis, ax.set_xscale), (ax.yaxis, ax.set_yscale)):
        scale("log")
        axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(ticker.NullFormatter())


def speedup_vs_latency(doc: dict[str, Any]) -> str:
    z = findings.of(doc)
    eager = {k: r["latency_ms"]["median"] for k, r in findings.eager_rows(doc["rows"]).items()}
    timed = [r for r in doc["rows"] if r["mode"] != "eager" and r["status"] in typed.TIMED
             and r.get("speedup") and (r["model"], r["batch_size"]) in eager]
    if not timed or not z.modes:
        return ""
    with plots.figure(3.0, ncols=len(z.modes), sharey=True) as (fig, axes):
        axes = axes if len(z.modes) > 1 else [axes]
        for ax, mode in zip(axes, z.modes, strict=True):
            for i, bs in enumerate(z.batches):
                mine = [r for r in timed if r["mode"] == mode and r["batch_size"] == bs]
                ax.scatter([eager[r["model"], bs] for r in mine], [r["speedup"] for r in mine],
                           s=22, color=plots.PALETTE[i % len(plots.PALETTE)],
                           label=f"batch {bs}" if ax is axes[0] else None)
            ax.axhline(1.0, color=plots.INK, linewidth=0.8, linestyle="--")
            _log_axes(ax)
            ax.set_title(mode, fontsize=plots.FONT_PT)
            ax.set_xlabel("eager latency (ms)")
            ax.grid(True, which="major")
        axes[0].set_ylabel("speedup over eager (×)")
        plots.legend_below(fig, len(z.batches))
        svg = plots.svg(fig, f"zoo-{doc['provenance']['device']}")
    # A label read in place of the drawing: the page's prose under it gives the counts.
    return plots.html_figure(svg, "Speedup against eager latency")
