"""``python -m snippets.bench``: flags onto one BenchConfig, rows onto a file, a table out.

Thin on purpose: the measuring is in ``snippets.bench``, the tables in ``snippets.bench.tables``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from dataclasses import replace
from pathlib import Path

import torch
from rich.console import Console

from snippets import bench
from snippets.bench import tables
from snippets.core import backends, cli, config, models, results

PROG = "python -m snippets.bench"


def _mode(text: str) -> str:
    if text not in bench.MODES:
        raise ValueError(f"unknown mode {text!r}; choose from {', '.join(bench.MODES)} or all")
    return text


def _modes(text: str) -> tuple[str, ...]:
    return bench.MODES if text.strip() == "all" else cli.csv_of(_mode, "mode")(text)


def parser() -> cli.Parser:
    d = bench.DEFAULTS

    def default(name: str, unit: str = "") -> str:
        return config.help_default(d, name, unit)

    p = cli.Parser(prog=PROG, description="Time eager against torch.compile, honestly.")
    builtin = cli.builtin_model(tuple(models.BUILTIN))
    p.add_argument("--models", type=cli.csv_of(builtin, "model"),
                   default=bench.BenchConfig.models,
                   help=f"built-in models, comma-separated: {', '.join(models.BUILTIN)} "
                        "(default: both)")
    p.add_argument("--model", action="append", default=[], metavar="PKG.MODULE:FACTORY",
                   help="your own model: factory(batch_size) returns (module, example_input); "
                        "repeatable; given alone, it replaces the built-in models")
    p.add_argument("--batch-sizes", type=cli.csv_of(cli.positive_int, "batch size"),
                   help=f"comma-separated {default('batch_sizes')}")
    p.add_argument("--modes", type=_modes,
                   help=f"comma-separated from {', '.join(bench.MODES)}, or all; eager is always "
                        f"run {default('modes')}")
    p.add_argument("--dtype", choices=list(bench.DTYPES),
                   help=f"{default('dtype')}; on CUDA fp32 matmuls run as TF32")
    p.add_argument("--channels-last", action="store_true", help="NHWC layout for 4-D inputs")
    p.add_argument("--device", default="auto", help=cli.DEVICE_HELP)
    p.add_argument("--rounds", type=cli.positive,
                   help=f"interleaved timing rounds {default('rounds')}")
    p.add_argument("--warm-rounds", type=cli.non_negative,
                   help=f"untimed rounds before the timed ones {default('warm_rounds')}")
    p.add_argument("--host-gate", action="store_true",
                   help="re-measure rounds timed while the host CPU ran slow (default: keep "
                        "them, and record the host's speed beside each round)")
    p.add_argument("--crosscheck", action="store_true",
                   help="time every variant again with torch.utils.benchmark.Timer and a plain "
                        "wall clock, beside the harness's own timing")
    p.add_argument("--ladder", action="store_true",
                   help="climb the speed ladder: eager, compile, + channels_last, + CUDA graphs, "
                        "+ freezing, each rung adding one step to the one before; a max-autotune "
                        "mode in --modes adds the max-autotune rung")
    # A cached choice (cuDNN's plan per convolution shape) is made once per process: measure a
    # switch like this one in separate processes, one per setting, not both ways in one.
    p.add_argument("--cudnn-benchmark", action=argparse.BooleanOptionalAction,
                   help="let cuDNN time its algorithms for each convolution shape (default: "
                        f"{'on' if backends.DEFAULT['cuda'].cudnn_benchmark else 'off'} on CUDA, "
                        f"{'on' if backends.DEFAULT['cpu'].cudnn_benchmark else 'off'} on CPU)")
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table")
    p.add_argument("--output", type=Path, help="write the results file here, row by row")
    p.add_argument("--compare", type=Path, metavar="FILE",
                   help="print this run beside a recorded results file; settings that differ "
                        "(dtype, layout, TF32, device) are named above the table")
    return p


def config_from_args(argv: list[str] | None) -> tuple[bench.BenchConfig, object]:
    args = parser().parse_args(argv)
    device = cli.device(PROG, args.device)
    try:
        user = tuple((spec, models.load_factory(spec)) for spec in args.model)
    except models.SpecError as exc:
        cli.fail(PROG, str(exc))
    only_user = user and "--models" not in " ".join(argv if argv is not None else sys.argv)
    chosen = None
    if args.cudnn_benchmark is not None:
        chosen = replace(backends.DEFAULT[torch.device(config.resolve_device(device)).type],
                         cudnn_benchmark=args.cudnn_benchmark)
    cfg = bench.BenchConfig(
        models=() if only_user else args.models, factories=user, batch_sizes=args.batch_sizes,
        modes=args.modes, dtype=args.dtype, channels_last=args.channels_last, device=device,
        rounds=args.rounds, warm_rounds=args.warm_rounds, host_gate=args.host_gate,
        crosscheck=args.crosscheck, ladder=args.ladder, backends=chosen,
    ).resolve()
    return cfg, args


def _print(doc: dict, recorded: dict | None, fmt: str) -> None:
    if fmt == "json":
        print(json.dumps(doc, indent=1))
    elif fmt == "markdown":
        print(tables.markdown_table(doc["rows"]) + "\n\n" + results.stamp(doc, "this run"))
        if recorded:
            print("\n" + tables.compare_markdown(doc, recorded))
    else:
        out = Console(width=None if sys.stdout.isatty() else 200)
        out.print(tables.rich_table(doc))
        if recorded:
            out.print(tables.compare_table(doc, recorded))


def main(argv: list[str] | None = None) -> int:
    # Inductor's C++ backend logs "No CUDA runtime is found" on every CPU-only machine: expected
    # there, and alarming to a reader of the CPU table, so it is kept out of the output.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    cfg, args = config_from_args(argv)
    commit = cli.commit_from_env()
    try:
        recorded = results.load(args.compare, "bench") if args.compare else None
    except results.ResultsError as exc:
        cli.fail(PROG, str(exc))
    cli.check_output(PROG, args.output)

    def write(doc: dict) -> None:
        if args.output:
            results.write_atomic(args.output, doc)

    # --ladder climbs the speed page's ladder, which sits above the benchmark (snippets.speed):
    # the command line, the top layer, hands it down as the run's group.
    group = None
    if cfg.ladder:
        from snippets.speed import ladder

        group = ladder.bench_group
    return cli.run_rows(
        PROG, lambda progress, on_row: bench.document(cfg, progress, on_row=on_row,
                                                      commit=commit, group=group),
        lambda doc: _print(doc, recorded, args.format), write=write, output=args.output)

if __name__ == "__main__":
    raise SystemExit(main())
