"""``python -m snippets.bench``: flags onto one BenchConfig, rows onto a file, a table out.

Thin on purpose: the measuring is in ``snippets.bench``, the tables in ``snippets.bench.tables``.
"""

from __future__ import annotations

from snippets import bench
from snippets.bench import kinds, tables
from snippets.core import backends, cli, flags, recording

PROG = "python -m snippets.bench"
PRINT = recording.Printer.of_rows(tables.markdown_table, rich=tables.rich_table,
                                  compare_markdown=tables.compare_markdown,
                                  compare_rich=tables.compare_table)
# The help's defaults: the table's, and for the two backend switches, which the config leaves
# None (the device's own), the device's backend settings.
SHOWN = {device: {**bench.DEFAULTS[device], "tf32": "on" if b.tf32 else "off",
                  "cudnn_benchmark": "on" if b.cudnn_benchmark else "off"}
         for device, b in backends.DEFAULT.items()}


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(bench.BenchConfig))
    flags.declare(p, bench.BenchConfig, SHOWN)
    cli.add_model(p)
    cli.add_output(p)
    cli.add_compare(p)
    return p


def config_from_args(argv: list[str] | None) -> tuple[bench.BenchConfig, object]:
    args = parser().parse_args(argv)
    return flags.build(PROG, bench.BenchConfig, args).resolve(), args


def main(argv: list[str] | None = None) -> int:
    cfg, args = config_from_args(argv)
    return recording.record_run(PROG, args, kinds.BENCH.name, cfg, bench.document, PRINT)


if __name__ == "__main__":
    raise SystemExit(main())
