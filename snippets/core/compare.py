"""This run beside a recorded one, as ``--compare`` prints it, with both runs' stamps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from snippets.core import render
from snippets.core.stamps import stamp


def setting_differences(doc: dict[str, Any], other: dict[str, Any], settings: Sequence[str], *,
                        device_by: str = "device") -> list[str]:
    """``dtype: bf16 here, fp32 recorded`` for the device (by ``device_by``) and ``settings``."""
    mine, theirs = doc["provenance"], other["provenance"]
    out = []
    if mine.get(device_by) != theirs.get(device_by):
        out.append(f"device: {mine.get('device')} here, {theirs.get('device')} recorded")
    for key in settings:
        a, b = mine.get("settings", {}).get(key), theirs.get("settings", {}).get(key)
        if a != b:
            out.append(f"{key}: {a} here, {b} recorded")
    return out


def title(doc: dict[str, Any], other: dict[str, Any], settings: Sequence[str], *,
          device_by: str = "device") -> str:
    """Whether the two runs compare like for like, and where not, how they differ."""
    diffs = setting_differences(doc, other, settings, device_by=device_by)
    if not diffs:
        return "Like for like, same settings"
    return "NOT like for like: " + "; ".join(diffs)


def markdown(heading: str, doc: dict[str, Any], other: dict[str, Any], columns: Sequence[str],
             cells: list[list[str]], *, left_last: bool = False) -> str:
    """The title, the table (a three-column key) and the two runs' stamps."""
    table = render.markdown_table(columns, cells, left=3, left_last=left_last)
    return f"{heading}\n\n{table}\n\n{stamp(doc, 'this run')}\n\n{stamp(other)}"


def rich_table(heading: str, doc: dict[str, Any], other: dict[str, Any], columns: Sequence[str],
               cells: list[list[str]], *, left_last: bool = False) -> Table:
    """The same for a terminal: the stamps as the caption."""
    out = Table(title=heading, caption=f"{stamp(doc, 'this run')}\n{stamp(other)}",
                caption_justify="left")
    for i, col in enumerate(columns):
        last = left_last and i == len(columns) - 1
        out.add_column(col, justify="left" if i < 3 or last else "right")
    for row in cells:
        out.add_row(*row)
    return out
