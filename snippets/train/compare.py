"""A run in a terminal, and a run beside a recorded one: what ``python -m snippets.train``
prints."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from snippets.core import columns, render
from snippets.core import compare as against
from snippets.core.stamps import stamp
from snippets.train.tables import KEY, by_key, detail_columns, placed, step_median


def rich_table(doc: dict[str, Any], title: str | None = None) -> Table:
    return columns.rich(placed(doc["rows"]), KEY, detail_columns(doc["provenance"]),
                        title=title, stamp=stamp(doc, "this run"))


# The settings that change what a step time means: a ratio across any of them is not like for like.
COMPARED_SETTINGS = ("dtype", "optimizer", "tf32", "cudnn_benchmark")
COMPARE_COLUMNS = ("Model", "Batch", "Variant", "This ms", "Recorded ms", "This/recorded",
                   "This speedup", "Recorded speedup")


def compare_title(doc: dict[str, Any], other: dict[str, Any]) -> str:
    return against.title(doc, other, COMPARED_SETTINGS)


def compare_rows(doc: dict[str, Any], other: dict[str, Any]) -> list[list[str]]:
    """This run beside a recorded one, matched on (model, batch size, variant)."""
    recorded, out = by_key(other), []
    for row in doc["rows"]:
        old = recorded.get((row["model"], row["batch_size"], row["variant"]))
        now_ms, old_ms = step_median(row), step_median(old)
        out.append([row["model"], str(row["batch_size"]), row["variant"], render.ms(now_ms),
                    render.ms(old_ms), f"{now_ms / old_ms:.2f}" if now_ms and old_ms else "–",
                    render.num(row.get("speedup"), ".2f"),
                    render.num((old or {}).get("speedup"), ".2f")])
    return out


def compare_markdown(doc: dict[str, Any], other: dict[str, Any]) -> str:
    return against.markdown(compare_title(doc, other), doc, other, COMPARE_COLUMNS,
                            compare_rows(doc, other))


def compare_table(doc: dict[str, Any], other: dict[str, Any]) -> Table:
    return against.rich_table(compare_title(doc, other), doc, other, COMPARE_COLUMNS,
                              compare_rows(doc, other))
