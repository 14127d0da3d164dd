"""``python -m snippets.dynamic``: flags onto one DynamicConfig, a table out.

Thin on purpose: the measuring is in ``snippets.dynamic``, the tables in its ``tables``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from snippets import dynamic
from snippets.core import cli, results
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


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    device = cli.device(PROG, args.device)
    cli.check_output(PROG, args.output)
    cfg = dynamic.DynamicConfig(device=device, strategies=args.strategies, backend=args.backend)
    doc = dynamic.produce(cfg, commit=cli.commit_from_env())
    if args.output:
        results.write_atomic(args.output, doc)
    if args.format == "json":
        json.dump(doc, sys.stdout, indent=1)
        print()
    else:
        # Markdown tables read well in a terminal too; rich adds nothing a pipe could keep.
        print(tables.stalls(doc) + "\n\n" + tables.steady(doc))
        if args.format == "table":
            print(f"\n{results.stamp(doc, 'this run')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
