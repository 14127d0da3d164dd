"""The ladder plots: a figure per ladder, each rung's median and spread, its roofline floor and
goal; the table beside keeps the exact numbers."""

from __future__ import annotations

from typing import Any

from snippets.core import plots
from snippets.core import roofline
from snippets.speed import findings, goals


def _goal_ms(doc: dict[str, Any], model: str, bs: int, best: dict[str, Any]) -> float | None:
    """The goal of a ladder as a latency: a share of peak is the time the row's FLOPs take at
    that share of the measured peak."""
    peak = doc["provenance"].get("peak_bf16_tflops")
    for g in goals.GOALS:
        if (g.model, g.batch_size) != (model, bs):
            continue
        if g.metric == "latency_ms":
            return g.target
        if peak and best.get("flops"):
            return best["flops"] / (g.target / 100 * peak * 1e12) * 1e3
    return None


def ladder(doc: dict[str, Any], model: str, bs: int) -> str:
    """One ladder's figure: a bar per rung that ran, bottom rung at the top."""
    # The climb from the ladder's one eager row, as its table shows it (findings.climbed).
    rows = [p.row for p in findings.climbed(doc) if p.row["model"] == model
            and p.row["batch_size"] == bs and p.row.get("latency_ms")
            and p.row["status"] in ("ok", "noisy")]
    if not rows:
        return ""
    best = min(rows, key=lambda r: r["latency_ms"]["median"])
    floor = roofline.row_reading(best, doc["provenance"].get("ceilings"))
    goal = _goal_ms(doc, model, bs, best) if goals.DEVICE in str(
        doc["provenance"].get("device")) else None
    names = [r["mode"] for r in rows]
    ms = [r["latency_ms"]["median"] for r in rows]
    spread = [r["latency_ms"]["iqr"] / 2 for r in rows]
    with plots.figure(0.9 + 0.32 * len(rows)) as (fig, ax):
        # The bars' whiskers in the ink colour, which the page's scheme sets: black is lost on
        # the dark one.
        ax.barh(range(len(rows)), ms, xerr=spread, color=plots.PALETTE[0], capsize=3,
                error_kw={"ecolor": plots.INK})
        if floor:
            ax.axvline(floor["bound_ms"], color=plots.PALETTE[1], linestyle="--", linewidth=1.2,
                       label=f"roofline floor ({floor['bound']}-bound)")
        if goal:
            ax.axvline(goal, color=plots.PALETTE[2], linestyle=":", linewidth=1.5, label="goal")
        ax.set_yticks(range(len(rows)), names)
        ax.invert_yaxis()  # the table's order: eager on top
        ax.set_xlabel("median ms per call")
        ax.set_xlim(left=0)
        ax.set_title(f"{model} · batch {bs}", fontsize=plots.FONT_PT)
        ax.grid(axis="x")
        if floor or goal:
            plots.legend_below(fig, 2)
        svg = plots.svg(fig, "-".join(("ladder", model, str(bs), doc["provenance"]["device"])))
    # Read in place of the drawing, as its caption: the table beside it holds every value.
    return plots.html_figure(svg, f"{model} ladder at batch {bs}", f"{model} at batch {bs}")


def ladders(doc: dict[str, Any]) -> str:
    """A figure per ladder in the document, in its order."""
    groups = dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"])
    return "\n\n".join(f for f in (ladder(doc, m, b) for m, b in groups) if f)
