"""The command line of ``python -m snippets.dynamic``: flags onto one DynamicConfig, a table out.

Thin on purpose: the measuring is in ``snippets.dynamic``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from snippets import cli, dynamic, render, results

PROG = "python -m snippets.dynamic"


def _strategy(text: str) -> str:
    if text not in dynamic.STRATEGIES:
        raise ValueError(f"unknown strategy {text!r}; choose from {', '.join(dynamic.STRATEGIES)}")
    return text


def device_of(prog: str, text: str) -> str:
    """auto, cpu or cuda[:N] as a device string; a CUDA request without CUDA is the user's."""
    if text == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if text != "cpu" and not text.startswith("cuda"):
        cli.fail(prog, f"unknown device {text!r}; choose from auto, cpu, cuda, cuda:N")
    if text.startswith("cuda") and not torch.cuda.is_available():
        cli.fail(prog, f"--device {text} asked for, but this machine has no CUDA device")
    return text


def check_output(prog: str, path: Path | None) -> None:
    if path is not None:
        try:
            results.check_writable(path)
        except results.ResultsError as exc:
            cli.fail(prog, str(exc))


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description="Recompiles and their stalls as input shapes change.")
    p.add_argument("--device", default="auto", help="auto (CUDA if present), cpu, cuda, cuda:N")
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
    device = device_of(PROG, args.device)
    check_output(PROG, args.output)
    cfg = dynamic.DynamicConfig(device=device, strategies=args.strategies, backend=args.backend)
    doc = dynamic.produce(cfg)
    if args.output:
        results.write_atomic(args.output, doc)
    if args.format == "json":
        json.dump(doc, sys.stdout, indent=1)
        print()
    else:
        # Markdown tables read well in a terminal too; rich adds nothing a pipe could keep.
        print(dynamic.markdown(doc) + "\n\n" + dynamic.steady_markdown(doc))
        if args.format == "table":
            print(f"\n{render.stamp(doc, 'this run')}")
    return 0
