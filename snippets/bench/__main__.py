"""``python -m snippets.bench``: flags onto one BenchConfig, rows onto a file, a table out.

Thin on purpose: the measuring is in ``snippets.bench``, the tables in ``snippets.bench.tables``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import torch

from snippets import bench
from snippets.bench import tables
from snippets.core import backends, cli, config, models

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
    cli.add_models(p, tuple(models.BUILTIN), default, chosen=bench.BenchConfig.models)
    p.add_argument("--modes", type=_modes,
                   help=f"comma-separated from {', '.join(bench.MODES)}, or all; eager is always "
                        f"run {default('modes')}")
    p.add_argument("--dtype", choices=list(bench.DTYPES),
                   help=f"{default('dtype')}; on CUDA fp32 matmuls run as TF32")
    p.add_argument("--channels-last", action="store_true", help="NHWC layout for 4-D inputs")
    cli.add_common(p, default)
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
    cli.add_output(p)
    p.add_argument("--compare", type=Path, metavar="FILE",
                   help="print this run beside a recorded results file; settings that differ "
                        "(dtype, layout, TF32, device) are named above the table")
    return p


def config_from_args(argv: list[str] | None) -> tuple[bench.BenchConfig, object]:
    args = parser().parse_args(argv)
    device = cli.device(PROG, args.device)
    user, only_user = cli.user_models(PROG, args.model, "--models" in " ".join(argv or sys.argv))
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


PRINT = cli.Printer(markdown=lambda doc: tables.markdown_table(doc["rows"]),
                    rich=tables.rich_table, compare_markdown=tables.compare_markdown,
                    compare_rich=tables.compare_table)


def main(argv: list[str] | None = None) -> int:
    cfg, args = config_from_args(argv)
    commit = cli.commit_from_env()
    # --ladder climbs the speed page's ladder, which sits above the benchmark (snippets.speed):
    # the command line, the top layer, hands it down as the run's group.
    group = None
    if cfg.ladder:
        from snippets.speed import ladder

        group = ladder.bench_group
    return cli.record(
        PROG, args, "bench", lambda progress, on_row, _: bench.document(
            cfg, progress, on_row=on_row, commit=commit, group=group),
        lambda doc, recorded: PRINT(doc, args.format, recorded))

if __name__ == "__main__":
    raise SystemExit(main())
