"""The benchmark's plots: every speedup with its spread, and compile time against the calls it
takes to earn it back; each returns the HTML of one figure, the page keeps the table beside."""

from __future__ import annotations

from typing import Any

from snippets.bench import payoff
from snippets.bench.stability import by_key
from snippets.core import plots


def _valid(row: dict[str, Any]) -> bool:
    """A compiled row whose speedup means something: it ran and computed eager's answer."""
    return row["mode"] != "eager" and row.get("speedup") is not None and row["status"] in (
        "ok", "noisy")


def speedup(doc: dict[str, Any]) -> str:
    """A line per model and batch, a dot per compiled mode, its bar half the IQR either side."""
    rows = [r for r in doc["rows"] if _valid(r)]
    if not rows:
        return ""  # nothing to draw: the table says why
    groups = list(dict.fromkeys((r["model"], r["batch_size"]) for r in rows))
    modes = list(dict.fromkeys(r["mode"] for r in rows))
    step = 0.7 / max(len(modes), 1)  # the modes of one group share one band of the y axis
    with plots.figure(0.9 + 0.45 * len(groups) * max(len(modes), 1) ** 0.5) as (fig, ax):
        ax.axvline(1.0, color=plots.INK, linewidth=0.8, linestyle="--")
        for i, mode in enumerate(modes):
            mine = [r for r in rows if r["mode"] == mode]
            y = [groups.index((r["model"], r["batch_size"])) + (i - (len(modes) - 1) / 2) * step
                 for r in mine]
            x = [r["speedup"] for r in mine]
            spread = [(r.get("speedup_iqr") or 0.0) / 2 for r in mine]
            ax.errorbar(x, y, xerr=spread, fmt="o", color=plots.PALETTE[i % len(plots.PALETTE)],
                        capsize=3, markersize=6, label=mode)
        ax.set_yticks(range(len(groups)), [f"{m} · batch {b}" for m, b in groups])
        ax.invert_yaxis()  # the table's order, top to bottom
        ax.set_xlabel("speedup over eager (×)")  # the page says the dashed line is eager's
        ax.set_xlim(left=0)
        ax.grid(axis="x")
        plots.legend_below(fig, len(modes))
        svg = plots.svg(fig, f"speedup-{doc['provenance']['device']}")
    # A label read in place of the drawing: the table beside it holds every value.
    return plots.html_figure(svg, "Speedup over eager, per mode")


def break_even(cold: dict[str, Any], warm: dict[str, Any]) -> str:
    """Compile time against the calls that earn it back, a panel per model: each configuration's
    point in the first process joined to its point in the next."""
    cold_rows, warm_rows = by_key(cold), by_key(warm)
    keys = [k for k, r in cold_rows.items() if k[2] != "eager" and r.get("compile_s")]
    models = list(dict.fromkeys(k[0] for k in keys))
    configs = list(dict.fromkeys(k[1:] for k in keys))  # (batch, mode): one colour each
    points = {}
    for key in keys:
        pair = [payoff.compile_and_calls(rows, key) for rows in (cold_rows, warm_rows)]
        if all(p is not None and p[1] is not None for p in pair):  # "never" has no point
            points[key] = pair
    with plots.figure(3.8, ncols=len(models), sharey=True) as (fig, axes):
        axes = axes if len(models) > 1 else [axes]
        for ax, model in zip(axes, models, strict=True):
            for key in (k for k in points if k[0] == model):
                (cx, cy), (wx, wy) = points[key]
                color = plots.PALETTE[configs.index(key[1:]) % len(plots.PALETTE)]
                ax.plot([cx, wx], [cy, wy], color=color, linewidth=1)
                # one legend entry per configuration, from the first panel that has it
                label = f"batch {key[1]}, {key[2]}" if model == models[0] else None
                ax.plot([cx], [cy], "o", color=color, markersize=7, label=label)
                ax.plot([wx], [wy], "o", markerfacecolor="none", color=color, markersize=7)
            ax.set_title(model, fontsize=plots.FONT_PT)
            ax.set_xlabel("compile s")
            ax.set_yscale("log")
            ax.set_xlim(left=0)
            ax.grid(which="major")
        axes[0].set_ylabel("calls to break even")
        plots.legend_below(fig, 2)
        svg = plots.svg(fig, "break-even")
    return plots.html_figure(svg, "Compile time against break-even calls")
