"""The dynamic-shapes page's plot: what each strategy's recompiles stalled the caller, drawn from
a results document with ``snippets.core.plots``; the table beside it keeps the numbers."""

from __future__ import annotations

from typing import Any

from snippets.core import plots

NOTE_GAP_PT = 4  # between a bar's end and its note


def _room_for(fig: Any, ax: Any, notes: list[tuple[float, Any]], least: float) -> float:
    """The x limit at which every note, drawn after its bar, ends inside the axes: a note is as
    wide in points whatever the scale, so the axis stretches until the longest bar leaves room
    for its note (a fixed margin cut the longest note off at the figure's edge)."""
    fig.canvas.draw()  # lays the figure out: the axes' and the notes' widths in pixels
    width = ax.get_window_extent().width
    limit = least
    for end, note in notes:
        room = width - note.get_window_extent().width - NOTE_GAP_PT * fig.dpi / 72 - 6
        if room > 0:  # the bar's end must sit at room/width of the axis
            limit = max(limit, end * width / room)
    return limit


def stalls(doc: dict[str, Any]) -> str:
    """One bar per strategy, made of one segment per call that compiled (its stall, in seconds),
    so a bar's length is the total stall and its segments count the compiles."""
    rows = doc["rows"]
    notes = []
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
            text = ax.annotate(note, (left, y), xytext=(NOTE_GAP_PT, 0),
                               textcoords="offset points", va="center",
                               fontsize=plots.FONT_PT - 1.5)
            text.set_in_layout(False)  # kept inside the axes below, not by shrinking them
            notes.append((left, text))
        ax.set_yticks(range(len(rows)), [r["strategy"] for r in rows])
        ax.invert_yaxis()  # the table's order, top to bottom
        ax.set_xlabel("seconds stalled")  # a segment per compile, as the page says
        longest = max((r["stall_total_ms"] for r in rows), default=0) / 1e3
        for _ in range(3):  # a new limit changes the tick labels, and with them the layout
            ax.set_xlim(0, _room_for(fig, ax, notes, longest * 1.05 or 1))
        ax.grid(axis="x")
        svg = plots.svg(fig, f"stalls-{doc['provenance']['device']}")
    # A label read in place of the drawing: the table beside it holds every value.
    return plots.html_figure(svg, "Recompile stalls per strategy")
