"""``python -m snippets.generate``: flags onto one GenerateConfig, the decode and prefill tables
out, the results file written after every row.

Thin on purpose: the measuring is in ``snippets.generate``, the tables in its ``tables``.
"""

from __future__ import annotations

import sys

from snippets import generate
from snippets.core import cli, config, flags
from snippets.generate import tables

PROG = "python -m snippets.generate"


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=(
        "A decoder's prefill and decode, eager against torch.compile's modes, against the "
        "device's measured bandwidth and matmul rate."))
    flags.declare(p, generate.GenerateConfig, generate.DEFAULTS)
    cli.add_output(p)
    return p


class _Rich:
    """The terminal's tables, one per phase, as one printable."""

    def __init__(self, doc: dict) -> None:
        self.parts = tables.rich_tables(doc)

    def __rich_console__(self, console, options):  # noqa: ANN001 (rich's protocol)
        yield from self.parts


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cfg = flags.build(PROG, generate.GenerateConfig, args)
    try:
        cfg = cfg.resolve()
    except config.ConfigError as exc:
        cli.fail(PROG, f"argument --{exc.name}: {exc}")
    args.append = False
    show = cli.Printer(markdown=tables.report, rich=_Rich)

    def produce(progress, on_row, old):  # noqa: ANN001, ARG001 (cli.record's contract)
        return generate.produce(cfg, commit=cli.commit_from_env(), on_row=on_row,
                                progress=progress)

    return cli.record(PROG, args, generate.KIND, produce, show)


if __name__ == "__main__":
    sys.exit(main())
