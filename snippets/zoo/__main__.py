"""``python -m snippets.zoo``: flags onto one ZooConfig, rows onto a file, a table out."""

from __future__ import annotations

from snippets import zoo
from snippets.bench.__main__ import PRINT
from snippets.core import cli, flags

PROG = "python -m snippets.zoo"


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description="Eager against torch.compile on real architectures.")
    flags.declare(p, zoo.ZooConfig, zoo.DEFAULTS)
    cli.add_output(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cfg = flags.build(PROG, zoo.ZooConfig, args).resolve()
    if not cfg.entries():
        cli.fail(PROG, "no zoo model is in both --models and --families")
    return cli.record_run(PROG, args, zoo.KIND, cfg, zoo.document, PRINT)


if __name__ == "__main__":
    raise SystemExit(main())
