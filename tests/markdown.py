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
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in table[2:]]
