"""``python -m snippets.debug --minify``: run the accuracy minifier on a planted bug, record it."""

from __future__ import annotations

from dataclasses import dataclass

from snippets.core import cli, flags, recording
from snippets.debug import minifier, tables

PROG = "python -m snippets.debug"


@dataclass(frozen=True)
class Runs:
    """The debugging page's recorded run (its one field is the switch, always given).

    Attributes:
        minify: plant a wrong-answer bug in Inductor, let the accuracy minifier find it, and record
            what it found (minutes on a CPU)
    """

    minify: bool = False


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(Runs))
    cli.add_runs(p, flags.docstrings(Runs), required=True)
    cli.add_output(p, ("markdown", "json"))
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    commit = cli.commit_from_env()
    return recording.record(PROG, args, minifier.KIND,
                            lambda progress, on_row, old: minifier.produce(commit=commit),
                            recording.Printer(markdown=tables.minifier))


if __name__ == "__main__":
    raise SystemExit(main())
