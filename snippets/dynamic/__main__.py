"""``python -m snippets.dynamic``: flags onto one DynamicConfig, a table out."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from snippets.core import cli, flags, recording, results, stamps
from snippets.dynamic import producer, tables

PROG = "python -m snippets.dynamic"


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(producer.DynamicConfig))
    flags.declare(p, producer.DynamicConfig, skip=("rounds",))
    cli.add_output(p)
    return p


def _print(doc: dict, fmt: str) -> None:
    if fmt == "json":
        json.dump(doc, sys.stdout, indent=1)
        print()
        return
    # Markdown tables read well in a terminal too; rich adds nothing a pipe could keep.
    steady = "\n\n" + tables.steady(doc) if doc.get("steady") else ""
    print(tables.stalls(doc) + steady)
    if fmt == "table":
        print(f"\n{stamps.stamp(doc, 'this run')}")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cfg = flags.build(PROG, producer.DynamicConfig, args)
    cli.check_output(PROG, args.output)

    def produce(progress: Callable[[str], None], on_row: Callable[[dict], None]) -> dict:
        def row(doc: dict) -> None:
            on_row(doc)  # written first, then a Ctrl-C that torch swallowed stops the run here
            progress(f"{len(doc['rows'])} of {len(cfg.strategies)} strategies")
        return producer.produce(cfg, commit=cli.commit_from_env(), on_row=row)

    def write(doc: dict) -> None:
        if args.output:
            results.write_atomic(args.output, doc)

    return recording.run_rows(PROG, produce, lambda doc: _print(doc, args.format), write=write,
                              output=args.output)


if __name__ == "__main__":
    raise SystemExit(main())
