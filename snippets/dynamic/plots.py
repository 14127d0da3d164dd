"""The dynamic-shapes page's plot: what each strategy's recompiles stalled the caller, drawn from
a results document with ``snippets.core.plots``; the table beside it keeps the numbers."""

from __future__ import annotations

from typing import Any

from snippets.core import plots


def stalls(doc: dict[str, Any]) -> str:
    """One bar per strategy, made of one segment per call that compiled (its stall, in seconds),
    so a bar's length is the total stall and its segments count the compiles."""
    rows = doc["rows"]
    with plots.figure(0.8 + 0.42 * len(rows)) as (fig, ax):
        for y, row in enumerate(rows):
            left = 0.0
            for call in row["calls"]:
                if call["compiled"]:
                    ax.barh(y, call["ms"] / 1e3, left=left, height=0.6,
                            color=plots.PALETTE[0], edgecolor=plots.INK, linewidth=0.6)
                    left += call["ms"] / 1e3
            note = f"{row['compiles']} compiles"
            if row["eager_after_limit"]:
                note += f", {row['eager_after_limit']} shapes eager"
            ax.annotate(note, (left, y), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize=plots.FONT_PT - 1.5)
        ax.set_yticks(range(len(rows)), [r["strategy"] for r in rows])
        ax.invert_yaxis()  # the table's order, top to bottom
        ax.set_xlabel("seconds the caller stalled, one segment per compile")
        longest = max((r["stall_total_ms"] for r in rows), default=0) / 1e3
        ax.set_xlim(0, 1.6 * longest or 1)  # room for the note after the longest bar
        ax.grid(axis="x")
        svg = plots.svg(fig, f"stalls-{doc['provenance']['device']}")
    most = max(rows, key=lambda r: r["stall_total_ms"]) if rows else None
    least = min(rows, key=lambda r: r["stall_total_ms"]) if rows else None
    alt = (f"Recompile stalls of {len(rows)} strategies over the same schedule of shapes: "
           f"longest in total for {most['strategy']} ({most['compiles']} compiles), shortest for "
           f"{least['strategy']} ({least['compiles']} compiles); the table below gives every "
           "value." if rows else "No strategy to plot.")
    return plots.html_figure(svg, alt, "Seconds each strategy stalled its caller over the "
                                       "schedule; each segment is one compile.")
