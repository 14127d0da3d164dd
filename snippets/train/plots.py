"""The training page's plot: each variant's loss curve beside eager's, from the same weights."""

from __future__ import annotations

from typing import Any

from snippets.core import plots


def losses(doc: dict[str, Any]) -> str:
    """Loss against step for every variant; eager dashed and drawn last, so a compiled curve that
    leaves it shows, and a variant that drifted past the tolerance named in the legend."""
    rows = [r for r in doc["rows"] if r.get("losses")]
    figures = []
    for model in dict.fromkeys(r["model"] for r in rows):
        mine = [r for r in rows if r["model"] == model]
        sizes = list(dict.fromkeys(r["batch_size"] for r in mine))
        variants = list(dict.fromkeys(r["variant"] for r in mine if r["variant"] != "eager"))
        with plots.figure(2.9, ncols=len(sizes), sharey=False) as (fig, axes):
            axes = axes if len(sizes) > 1 else [axes]
            for ax, bs in zip(axes, sizes, strict=True):
                curves = {r["variant"]: r for r in mine if r["batch_size"] == bs}
                for i, variant in enumerate(variants):
                    r = curves.get(variant)
                    if r is None:
                        continue
                    label = variant + (" (drifted)" if r["status"] == "mismatch" else "")
                    ax.plot(range(1, len(r["losses"]) + 1), r["losses"], linewidth=1.4,
                            color=plots.PALETTE[i % len(plots.PALETTE)],
                            label=label if bs == sizes[0] else None)
                if "eager" in curves:
                    eager = curves["eager"]["losses"]
                    ax.plot(range(1, len(eager) + 1), eager, color=plots.INK, linestyle="--",
                            linewidth=1.1, label="eager" if bs == sizes[0] else None)
                ax.set_title(f"batch {bs}", fontsize=plots.FONT_PT)
                ax.set_xlabel("step")
                ax.grid(axis="y")
            axes[0].set_ylabel("loss")
            # Two columns: a mode's name (max-autotune-no-cudagraphs) is a third of the width.
            plots.legend_below(fig, min(len(variants) + 1, 2))
            svg = plots.svg(fig, f"losses-{model}-{doc['provenance']['device']}")
        # A label read in place of the drawing: the table beside it holds the losses and
        # which variant drifted.
        figures.append(plots.html_figure(svg, f"Loss per step of {model}", model))
    return "\n\n".join(figures)
