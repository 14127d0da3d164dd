"""``python -m snippets.generate``: flags onto one GenerateConfig, the decode and prefill tables
out, the results file written after every row."""

from __future__ import annotations

import sys

from snippets import generate
from snippets.core import recording
from snippets.generate import command, tables

PROG = "python -m snippets.generate"


class _Rich:
    """The terminal's tables, one per phase, as one printable."""

    def __init__(self, doc: dict) -> None:
        self.parts = tables.rich_tables(doc)

    def __rich_console__(self, console, options):  # noqa: ANN001 (rich's protocol)
        yield from self.parts


TOOL = command.Tool(
    PROG, generate.KIND, generate.GenerateConfig, generate.DEFAULTS, generate.produce,
    recording.Printer(markdown=tables.report, rich=_Rich))
main, parser = TOOL.main, TOOL.parser


if __name__ == "__main__":
    sys.exit(main())
