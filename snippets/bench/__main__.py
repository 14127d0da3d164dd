"""``python -m snippets.bench``: flags onto one BenchConfig, rows onto a file, a table out.

Thin on purpose: the measuring is in ``snippets.bench``, the tables in ``snippets.bench.tables``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from snippets import bench
from snippets.bench import kinds, tables
from snippets.core import backends, cli, config, flags, recording

PROG = "python -m snippets.bench"
PRINT = recording.Printer.of_rows(tables.markdown_table, rich=tables.rich_table,
                                  compare_markdown=tables.compare_markdown,
                                  compare_rich=tables.compare_table)


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description="Time eager against torch.compile, honestly.")
    flags.declare(p, bench.BenchConfig, bench.DEFAULTS)
    cli.add_model(p)
    # A cached choice (cuDNN's plan per convolution shape) is made once per process: measure a
    # switch like this one in separate processes, one per setting, not both ways in one.
    p.add_argument("--cudnn-benchmark", action=argparse.BooleanOptionalAction,
                   help="let cuDNN time its algorithms for each convolution shape (default: "
                        f"{'on' if backends.DEFAULT['cuda'].cudnn_benchmark else 'off'} on CUDA, "
                        f"{'on' if backends.DEFAULT['cpu'].cudnn_benchmark else 'off'} on CPU)")
    p.add_argument("--tf32", action=argparse.BooleanOptionalAction,
                   help="let fp32 matmuls and convolutions run as TF32 on the tensor cores "
                        "(float32 matmul precision high, cuDNN TF32), or keep them in full fp32 "
                        f"(default: {'on' if backends.DEFAULT['cuda'].tf32 else 'off'} on CUDA, "
                        f"{'on' if backends.DEFAULT['cpu'].tf32 else 'off'} on CPU)")
    cli.add_output(p)
    cli.add_compare(p, "dtype, layout, TF32, device")
    return p


def config_from_args(argv: list[str] | None) -> tuple[bench.BenchConfig, object]:
    args = parser().parse_args(argv)
    cfg = flags.build(PROG, bench.BenchConfig, args)
    # Each switch given goes on top of the device's other backend settings.
    chosen: dict[str, object] = {}
    if args.cudnn_benchmark is not None:
        chosen["cudnn_benchmark"] = args.cudnn_benchmark
    if args.tf32 is not None:
        chosen |= {"matmul_precision": "high" if args.tf32 else "highest",
                   "cudnn_tf32": args.tf32}
    if chosen:
        device = config.device_type(config.resolve_device(cfg.device))
        cfg = replace(cfg, backends=replace(backends.DEFAULT[device], **chosen))
    return cfg.resolve(), args



def main(argv: list[str] | None = None) -> int:
    cfg, args = config_from_args(argv)
    return recording.record_run(PROG, args, kinds.BENCH.name, cfg, bench.document, PRINT)


if __name__ == "__main__":
    raise SystemExit(main())
