"""The one renderer of the guide's timing tables, in the spirit of torch.utils.benchmark's Compare:
rows by key, a column per value, a measured time with its spread inline (``1.23 ±2.1%``), and the
units said once, in a line under the table, rather than in every header."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from snippets.core import render
from snippets.core.rows import InRun

MISSING = "–"  # a value a row does not have: the dash every table of the guide shows
# The footer's legend, each said once (docs/glossary.md says it in full).
IN_MS = "times in ms"
SPREAD = "± is IQR ÷ median"  # a time's spread, as a share of it: 1.23 ±2.1%
RATIO = "×: same-round median ratio"  # two medians timed in the same rounds, divided
# A speedup is a RATIO; its ± is half the interquartile range of its per-round ratios.
SPEEDUP = ("speedup: same-round median ratio", "speedup ±: half its rounds' IQR")


@dataclass(frozen=True)
class Column:
    """A header, how to ``read`` a row's value and ``show`` it (``MISSING`` for None), whether
    it aligns left (words), and the footer's ``notes`` for it."""

    header: str
    read: Callable[[Any], Any]
    show: Callable[[Any], str] = str
    left: bool = False
    notes: tuple[str, ...] = ()

    def cell(self, row: Any) -> str:
        value = self.read(row)
        return MISSING if value is None else self.show(value)


# ---- the columns most tables share --------------------------------------------------------------

def raw(row: Any) -> Mapping[str, Any]:
    """A row as recorded, whether placed (anything with ``.row``) or as the file holds it."""
    return row if isinstance(row, Mapping) else row.row


def field(header: str, name: str) -> Column:
    """A key part read from a row's field (``model``, ``batch_size``)."""
    return Column(header, lambda r: raw(r)[name], left=True)


def variant(header: str, name: str) -> Column:
    """A row's variant, after its run where its group holds several (``command 2 · eager``)."""
    return Column(header, lambda r: " · ".join(
        x for x in (r.tag if isinstance(r, InRun) else "", str(raw(r)[name])) if x), left=True)


def run(header: str = "Command") -> Column:
    """A placed row's run (``command 2``; "" for the first), as a key part."""
    return Column(header, lambda p: p.tag, left=True)


def spread(timing: Mapping[str, Any]) -> str:
    """A timing's median with its IQR as a share of it, where kept: ``1.23 ±2.1%``."""
    median, iqr = timing["median"], timing.get("iqr")
    return render.ms(median) + (f" ±{100 * iqr / median:.1f}%" if iqr is not None else "")


def timing(header: str, read: Callable[[Any], Mapping[str, Any] | None]) -> Column:
    """A measured time with its spread; ``read`` gives the timing's dict, or None."""
    return Column(header, lambda r: _timed(read(r)), spread, notes=(IN_MS, SPREAD))


def _timed(t: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """A timing that has a median to show, or None."""
    return t if t and t.get("median") else None


def ms(header: str, read: Callable[[Any], float | None]) -> Column:
    """A time in milliseconds, without its spread (``render.ms``'s three figures)."""
    return Column(header, read, render.ms, notes=(IN_MS,))


def number(header: str, read: Callable[[Any], Any], fmt: str, *, notes: tuple[str, ...] = ()
           ) -> Column:
    return Column(header, read, lambda v: render.plain(v, fmt), notes=notes)


def words(header: str, read: Callable[[Any], Any]) -> Column:
    """Words, left-aligned: a status, a verdict."""
    return Column(header, read, left=True)


def steps_shown(n: int) -> list[int]:
    """The 1-based steps a loss table shows of n: first, a quarter, half, last."""
    return sorted({1, *(max(1, round(n * q)) for q in (0.25, 0.5)), n}) if n else []


def status_text(row: Mapping[str, Any], noisy_message: bool = True) -> str:
    """A row's status with its message (``error: CUDA out of memory``); a noisy one without
    unless ``noisy_message`` (where an IQR column says it)."""
    if not row.get("message") or (row["status"] == "noisy" and not noisy_message):
        return row["status"]
    return f"{row['status']}: {row['message']}"


def status(read: Callable[[Any], Mapping[str, Any]] = lambda r: r, *,
           noisy_message: bool = True) -> Column:
    """The Status column: ``status_text`` of the row ``read`` finds."""
    return words("Status", lambda x: status_text(read(x), noisy_message))


def speedup(header: str = "Speedup") -> Column:
    """A placed row's speedup, shown where the table shows its baseline (``render.speedup``)."""
    return Column(header, lambda p: render.speedup(p.row, p.paired), notes=SPEEDUP)


# ---- the layouts --------------------------------------------------------------------------------

def label_header(key: Sequence[Column]) -> str:
    """The joined key's header: ``Model · batch · mode``."""
    return " · ".join([key[0].header, *(k.header[0].lower() + k.header[1:] for k in key[1:])])


def label(key: Sequence[Column], row: Any) -> str:
    """The joined key of one row, its empty parts left out (a first run's tag)."""
    return " · ".join(str(c) for c in (k.read(row) for k in key) if c not in ("", None))


def grid(rows: Iterable[Any], key: Sequence[Column], values: Sequence[Column], *,
         joined: bool = True) -> tuple[list[str], str, list[list[str]]]:
    """The header, alignment letters and cells of a table, the key first (joined in one column,
    or a column per part)."""
    keys = [label_header(key)] if joined else [k.header for k in key]
    head = [*keys, *(c.header for c in values)]
    align = "l" * len(keys) + "".join("l" if c.left else "r" for c in values)
    body = [[*([label(key, r)] if joined else [k.cell(r) for k in key]),
             *(c.cell(r) for c in values)] for r in rows]
    return head, align, body


def notes(values: Sequence[Column]) -> str:
    """The columns' notes, each once, as one line; "" for none."""
    text = "; ".join(dict.fromkeys(n for c in values for n in c.notes))
    return f"{text[0].upper()}{text[1:]}." if text else ""


def footer(values: Sequence[Column]) -> str:
    """The line under a table on a page: its ``notes``."""
    text = notes(values)
    return f'<p class="units">{text}</p>' if text else ""


def markdown(rows: Iterable[Any], key: Sequence[Column], values: Sequence[Column], *,
             joined: bool = True) -> str:
    """A row per row, its key first; the footer under it where a column has a note."""
    head, align, body = grid(rows, key, values, joined=joined)
    note = footer(values)
    return render.markdown_table(head, body, align=align) + (f"\n\n{note}" if note else "")


def rich(rows: Sequence[Any], key: Sequence[Column], values: Sequence[Column], *,
         title: str | None, stamp: str) -> Table:
    """The table for a terminal: notes and stamp as caption, failed rows red, noisy yellow."""
    head, align, body = grid(rows, key, values, joined=False)
    out = Table(title=title, caption="\n".join(x for x in (notes(values), stamp) if x),
                caption_justify="left")
    for col, a in zip(head, align, strict=True):
        out.add_column(col, justify="left" if a == "l" else "right")
    for r, cells in zip(rows, body, strict=True):
        status = raw(r)["status"]
        out.add_row(*cells, style=None if status == "ok" else
                    "yellow" if status == "noisy" else "red")
    return out
