"""``python -m snippets.train``: flags onto one TrainConfig, rows onto a file, a table out."""

from __future__ import annotations

import functools

from snippets import train
from snippets.core import cli, flags, recording
from snippets.train import compare, tables

PROG = "python -m snippets.train"
PRINT = recording.Printer.of_rows(tables.markdown_table, rich=compare.rich_table,
                                  compare_markdown=compare.compare_markdown,
                                  compare_rich=compare.compare_table)
parser = functools.partial(train.parser, PROG, train.TrainConfig, train.DEFAULTS)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cfg = flags.build(PROG, train.TrainConfig, args).resolve()
    cli.check_append(PROG, args.append, args.output)
    return recording.record_run(
        PROG, args, train.KIND, cfg, train.document, PRINT, join=train.join,
        joinable=recording.joinable_by(train.check_joinable, cfg.device, cfg.settings()))


if __name__ == "__main__":
    raise SystemExit(main())
