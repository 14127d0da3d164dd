"""Do the ratios a built site shows agree with the times shown beside them?

A speedup in a table is against a row of the same table: ``× eager`` against its group's first
row, ``× below`` against the row above, ``Eager ms`` over ``Compiled ms`` on one row. Each is
recomputed from the medians shown; one off by more than the rows' spread (IQR over median) plus
the rounding of three shown digits was taken against a row the table does not show (another
run's eager), and so is one in a group with two baseline rows (two runs merged in one table).

    python -m snippets.site.agree SITE_DIR     # one line per disagreement; exit 1 if any
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from snippets.site.build import site_from_args
from snippets.site.numbers import page_tables

# Ratio columns against the group's baseline row (the row whose own ratio is blank or 1), and
# against the row above (``× below``).
AGAINST_BASELINE = ("Speedup", "Speedup over eager", "× eager", "× all off", "× no freezing")
AGAINST_ABOVE = ("× below",)
# The medians, in the order looked for: a timing table (``core.columns``) heads them without their
# unit, which its footer states, and shows the spread inline: ``1.23 ±2.1%``.
TIME_COLUMNS = ("Median", "Step", "Median ms", "Step ms", "Median ms (IQR %)")
# Three shown significant digits on each of two medians and on the ratio itself.
ROUNDING = 0.015
# Where a table shows no spread for a row (nor its status): the harness's noisy threshold.
DEFAULT_SPREAD = 0.05
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


@dataclass(frozen=True)
class Disagreement:
    page: str
    table: int  # 1-based, in page order
    row: str  # the row's label
    column: str
    shown: float
    from_medians: float | None  # None: no single baseline row to take it from
    tolerance: float


@dataclass(frozen=True)
class _Row:
    label: str
    group: tuple[str, ...]
    name: str  # what the row is within its group: the mode, variant, rung or setting
    ms: float | None
    spread: float  # IQR over median
    cells: dict[str, str]


def number(text: str) -> float | None:
    """The first number of a cell (``1.92x ± 0.03`` is 1.92); None for ``–`` and the like."""
    m = NUMBER.search(text.replace(",", ""))
    return float(m.group()) if m else None


def _spread(head: list[str], cells: list[str], ms: float | None, time: str | None) -> float:
    by = dict(zip(head, cells, strict=False))
    inline = (re.search(r"±\s*([\d.]+)\s*%", by.get(time, "")) if time else None) or re.search(
        r"\(([\d.]+)\)", by.get("Median ms (IQR %)", ""))
    if inline:
        return float(inline.group(1)) / 100
    if number(by.get("IQR %", "")) is not None:
        return number(by["IQR %"]) / 100
    iqr = number(by.get("IQR ms", by.get("IQR", "")))
    if iqr is not None and ms:
        return iqr / ms
    status = re.search(r"IQR (?:is )?([\d.]+)\s*%", by.get("Status", ""))
    return float(status.group(1)) / 100 if status else DEFAULT_SPREAD


def _rows(head: list[str], body: list[list[str]]) -> list[_Row]:
    """Each body row with its group: the label's parts but the last (``resnet50 · 1``), the
    Model and Batch columns, or with a Settings column the whole label."""
    time = next((c for c in TIME_COLUMNS if c in head), None)
    out = []
    for cells in body:
        by = dict(zip(head, cells, strict=False))
        if "Model" in head and "Batch" in head:
            # A group's later runs name theirs before the variant: ``command 2 · eager``.
            *tag, name = cells[2].split(" · ")
            label, group = " · ".join(cells[:3]), (by["Model"], by["Batch"], *tag)
        else:
            label = cells[0]
            parts = tuple(label.split(" · "))
            group, name = ((parts, by["Settings"]) if "Settings" in head
                           else (parts[:-1], parts[-1]))
        ms = number(by[time]) if time else None
        out.append(_Row(label, group, name, ms, _spread(head, cells, ms, time), by))
    return out


def _tolerance(a: _Row, b: _Row, shown: str) -> float:
    plus = re.search(r"±\s*([\d.]+)", shown)
    stated = float(plus.group(1)) / (number(shown) or 1) if plus else 0.0
    return a.spread + b.spread + stated + ROUNDING


def table_disagreements(page: str, index: int, head: list[str], body: list[list[str]]
                        ) -> list[Disagreement]:
    out: list[Disagreement] = []
    # A table that shows each row's own eager time checks each row against it.
    own = next((c for c in ("Compiled ms", *TIME_COLUMNS) if c in head), None)
    eager_column = next((c for c in ("Eager ms", "Eager") if c in head), None)
    if eager_column and own and "Speedup" in head:
        for cells in body:
            by = dict(zip(head, cells, strict=False))
            eager, compiled, shown = (number(by[c]) for c in (eager_column, own, "Speedup"))
            if eager and compiled and shown:
                expect = eager / compiled
                if abs(shown / expect - 1) > 2 * ROUNDING + DEFAULT_SPREAD:
                    out.append(Disagreement(page, index, cells[0], "Speedup", shown, expect,
                                            2 * ROUNDING + DEFAULT_SPREAD))
        return out
    rows = _rows(head, body)
    for column in (c for c in head if c in AGAINST_BASELINE):
        groups: dict[tuple[str, ...], list[_Row]] = {}
        for r in rows:
            groups.setdefault(r.group, []).append(r)
        for members in groups.values():
            # Two rows named as the baseline (two eager rows) are two runs in one table.
            bases = [r for r in members if r.name == members[0].name]
            for r in members:
                shown = number(r.cells[column])
                if shown is None or r in bases or r.ms is None:
                    continue
                if len(bases) != 1 or bases[0].ms is None:
                    out.append(Disagreement(page, index, r.label, column, shown, None, 0.0))
                    continue
                out += _check(page, index, column, bases[0], r)
    for column in (c for c in head if c in AGAINST_ABOVE):
        for above, r in zip(rows, rows[1:], strict=False):
            # a table of findings shows the ratio without the medians: nothing to recompute
            if (above.group == r.group and number(r.cells[column]) is not None
                    and above.ms is not None and r.ms is not None):
                out += _check(page, index, column, above, r)
    return out


def _check(page: str, index: int, column: str, base: _Row, r: _Row) -> list[Disagreement]:
    shown, expect = number(r.cells[column]), base.ms / r.ms
    tolerance = _tolerance(base, r, r.cells[column])
    if abs(shown / expect - 1) <= tolerance:
        return []
    return [Disagreement(page, index, r.label, column, shown, expect, tolerance)]


def disagreements(site: Path) -> list[Disagreement]:
    """Every disagreement on every page of a built site, in page order."""
    out = []
    for path in sorted(site.rglob("index.html")):
        page = path.parent.relative_to(site).as_posix() or "home"
        for i, (head, body) in enumerate(page_tables(path.read_text(encoding="utf-8")), 1):
            out += table_disagreements(page, i, head, body)
    return out


PROG = "python -m snippets.site.agree"


def main(argv: list[str] | None = None) -> int:
    found = disagreements(site_from_args(PROG, __doc__, argv))
    for d in found:
        expect = "no single baseline row" if d.from_medians is None else (
            f"medians give {d.from_medians:.3g} (±{d.tolerance:.0%})")
        print(f"{d.page} table {d.table} · {d.row} · {d.column}: shown {d.shown:g}, {expect}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
