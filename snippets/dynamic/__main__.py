"""``python -m snippets.dynamic``: flags onto one DynamicConfig, a table out."""

from __future__ import annotations

import json
import sys

from snippets.core import cli, flags, process, results, stamps
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
    doc: dict = {}

    def save(current: dict) -> None:
        interrupt.check()  # between strategies: a Ctrl-C that torch swallowed stops here
        doc.update(current)
        if args.output:
            results.write_atomic(args.output, current)

    def stopped() -> int:
        interrupt.settle()
        if doc.get("rows"):
            _print(doc, args.format)
        print(f"interrupted: {len(doc.get('rows', []))} finished rows kept", file=sys.stderr)
        return interrupt.exit_code

    interrupt = process.Interrupt(last_words=stopped)
    try:
        with interrupt.installed():
            doc["complete"] = False
            save(producer.produce(cfg, commit=cli.commit_from_env(), on_row=save))
    except KeyboardInterrupt:
        pass  # every finished row is already on disk: show them and stop, below
    if interrupt.seen:
        return stopped()
    _print(doc, args.format)
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
