"""``python -m snippets.debug --minify``: run the accuracy minifier on a planted bug, record it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from snippets.core import cli, flags, process, results
from snippets.debug import minifier, tables

PROG = "python -m snippets.debug"


@dataclass(frozen=True)
class Runs:
    """The debugging page's recorded run.

    Its one field is the run's switch, given always; its docstring is the switch's help."""

    minify: bool = False
    """plant a wrong-answer bug in Inductor, let the accuracy minifier find it, and record what
    it found (minutes on a CPU)"""


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(Runs))
    cli.add_runs(p, flags.docstrings(Runs), required=True)
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")
    p.add_argument("--output", type=Path, help="write the results file here")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cli.check_output(PROG, args.output)

    def stopped() -> int:
        interrupt.settle()
        print("interrupted: nothing finished to keep")
        return interrupt.exit_code

    interrupt = process.Interrupt(last_words=stopped)
    try:
        with interrupt.installed():
            doc = minifier.produce(commit=cli.commit_from_env())
    except KeyboardInterrupt:
        return stopped()
    if args.output:
        results.write_atomic(args.output, doc)
    print(json.dumps(doc, indent=1) if args.format == "json" else tables.minifier(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
