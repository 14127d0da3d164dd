"""``python -m snippets.dynamic``: flags onto one DynamicConfig, a table out.

Thin on purpose: the measuring is in ``snippets.dynamic``, the tables in its ``tables``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from snippets import dynamic
from snippets.core import cli, process, results
from snippets.dynamic import tables

PROG = "python -m snippets.dynamic"


def _strategy(text: str) -> str:
    if text not in dynamic.STRATEGIES:
        raise ValueError(f"unknown strategy {text!r}; choose from {', '.join(dynamic.STRATEGIES)}")
    return text


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description="Recompiles and their stalls as input shapes change.")
    p.add_argument("--device", default="auto", help=cli.DEVICE_HELP)
    p.add_argument("--strategies", type=cli.csv_of(_strategy, "strategy"),
                   default=dynamic.DynamicConfig.strategies,
                   help=f"comma-separated from {', '.join(dynamic.STRATEGIES)} (default: all)")
    p.add_argument("--backend", choices=("inductor", "eager"), default="inductor",
                   help="eager: count recompiles in seconds, without compiling kernels")
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table")
    p.add_argument("--output", type=Path, help="write the results file here")
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
        print(f"\n{results.stamp(doc, 'this run')}")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    device = cli.device(PROG, args.device)
    cli.check_output(PROG, args.output)
    cfg = dynamic.DynamicConfig(device=device, strategies=args.strategies, backend=args.backend)
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
        return process.INTERRUPTED_EXIT

    interrupt = process.Interrupt(last_words=stopped)
    try:
        with interrupt.installed():
            doc["complete"] = False
            save(dynamic.produce(cfg, commit=cli.commit_from_env(), on_row=save))
    except KeyboardInterrupt:
        pass  # every finished row is already on disk: show them and stop, below
    if interrupt.seen:
        return stopped()
    _print(doc, args.format)
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
