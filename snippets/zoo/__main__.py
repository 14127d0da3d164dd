"""``python -m snippets.zoo``: flags onto one ZooConfig, rows onto a file, a table out."""

from __future__ import annotations

from snippets import zoo
from snippets.bench.__main__ import PRINT
from snippets.core import cli, flags, recording

PROG = "python -m snippets.zoo"


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(zoo.ZooConfig))
    flags.declare(p, zoo.ZooConfig, zoo.DEFAULTS)
    cli.add_output(p)
    p.add_argument("--append", action="store_true", help=cli.APPEND_SAME_SETTINGS)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cfg = flags.build(PROG, zoo.ZooConfig, args).resolve()
    if not cfg.entries():
        cli.fail(PROG, "no --models model in --families")
    cli.check_append(PROG, args.append, args.output)
    run = cfg.bench().resolve()  # the settings the file records: an appended run must match them
    return recording.record_run(PROG, args, zoo.KIND, cfg, zoo.document, PRINT, join=zoo.join,
                                joinable=recording.joinable_by(zoo.check_joinable, run.device,
                                                               run.settings()))


if __name__ == "__main__":
    raise SystemExit(main())
