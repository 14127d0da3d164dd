"""``python -m snippets.train``: flags onto one TrainConfig, rows onto a file, a table out."""

from __future__ import annotations


from snippets import train
from snippets.core import cli, flags, recording
from snippets.train import compare, tables

PROG = "python -m snippets.train"
PRINT = recording.Printer.of_rows(tables.markdown_table, rich=compare.rich_table,
                                  compare_markdown=compare.compare_markdown,
                                  compare_rich=compare.compare_table)


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(train.TrainConfig))
    flags.declare(p, train.TrainConfig, train.DEFAULTS)
    cli.add_model(p, logits=True)
    cli.add_output(p)
    p.add_argument("--append", action="store_true", help=cli.APPEND_SAME_SETTINGS)
    cli.add_compare(p)
    return p


def config_from_args(argv: list[str] | None) -> tuple[train.TrainConfig, object]:
    args = parser().parse_args(argv)
    cfg = flags.build(PROG, train.TrainConfig, args)
    cli.check_append(PROG, args.append, args.output)
    return cfg.resolve(), args



def main(argv: list[str] | None = None) -> int:
    cfg, args = config_from_args(argv)
    return recording.record_run(
        PROG, args, train.KIND, cfg, train.document, PRINT, join=train.join,
        joinable=recording.joinable_by(train.check_joinable, cfg.device, cfg.settings()))


if __name__ == "__main__":
    raise SystemExit(main())
