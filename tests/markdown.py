"""Reading back the Markdown tables the renderers write, for tests that count rows and cells."""

from __future__ import annotations


def table_rows(markdown: str) -> list[list[str]]:
    """The body rows of the first Markdown table in ``markdown``, as lists of stripped cells."""
    lines = markdown.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("|")), len(lines))
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        table.append(line)
    return [_cells(line) for line in table[2:]]


def all_rows(markdown: str) -> list[list[str]]:
    """The body rows of every Markdown table in ``markdown`` (each table's head and rule left
    out), in order, as lists of stripped cells."""
    out: list[list[str]] = []
    table: list[str] = []
    for line in [*markdown.splitlines(), ""]:
        if line.lstrip().startswith("|"):
            table.append(line.strip())
        else:
            out += [_cells(row) for row in table[2:]]
            table = []
    return out


def label(*parts: object) -> str:
    """A row's key as the tables write it in their first column: ``m · 32 · eager``."""
    return " · ".join(map(str, parts))


def rows(markdown: str, *key: object) -> list[list[str]]:
    """The cells after the first column of every body row (of every table in ``markdown``) whose
    first column is ``label(*key)``, in order: one row per table that lists the key."""
    want = label(*key)
    return [cells[1:] for cells in all_rows(markdown) if cells[0] == want]


def row(markdown: str, *key: object) -> list[str] | None:
    """The first of ``rows(markdown, *key)``; None where no row has that key."""
    return next(iter(rows(markdown, *key)), None)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip("|").split(" | ")]
