"""``python -m snippets.cpu``: flags onto one CpuConfig, a process per variant, rows onto a file,
a table out."""

from __future__ import annotations

from snippets import cpu
from snippets.core import cli, flags, recording
from snippets.cpu import tables

PROG = "python -m snippets.cpu"
PRINT = recording.Printer(markdown=tables.table)


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(cpu.CpuConfig))
    flags.declare(p, cpu.CpuConfig)
    cli.add_output(p, ("markdown", "json"))
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cfg = flags.build(PROG, cpu.CpuConfig, args)
    return recording.record_run(PROG, args, cpu.KIND, cfg, cpu.document, PRINT)


if __name__ == "__main__":
    raise SystemExit(main())
