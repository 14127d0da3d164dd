"""``python -m snippets.speed``: flags onto one SpeedConfig, rows onto a file, tables out."""

from __future__ import annotations

from snippets.speed import runs as speed
from snippets.core import cli, flags, recording, results
from snippets.speed import freezing, settings, tables

PROG = "python -m snippets.speed"

# The flags each run has no use for.
IDLE = {"ladder": ("modes",), "settings": ("rungs", "profile_calls", "backends_from"),
        "freezing": ("modes", "rungs", "profile_calls", "backends_from")}


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(speed.Runs))
    cli.add_runs(p, flags.docstrings(speed.Runs))
    flags.declare(p, speed.SpeedConfig, speed.DEFAULTS)
    cli.add_model(p)
    cli.add_output(p, ("markdown", "json"))
    p.add_argument("--append", action="store_true", help=cli.APPEND_SAME_SETTINGS)
    return p


def config_from_args(argv: list[str] | None) -> tuple[speed.SpeedConfig, object]:
    args = parser().parse_args(argv)
    if args.run is None:
        cli.fail(PROG, "choose --ladder, --settings or --freezing")
    for name in IDLE[args.run]:
        if getattr(args, name) is not None:
            cli.fail(PROG, f"--{name.replace('_', '-')} does not apply to --{args.run}")
    cli.check_append(PROG, args.append, args.output)
    cfg = flags.build(PROG, speed.SpeedConfig, args, run=args.run)
    if cfg.backends_from:
        try:
            cfg = speed.with_evidence(cfg, results.load(cfg.backends_from, settings.KIND))
        except results.ResultsError as exc:
            cli.fail(PROG, str(exc))
    return cfg.resolve(), args


def _report(doc: dict) -> str:
    return {settings.KIND: tables.settings_report, freezing.KIND: tables.freezing_report}.get(
        results.kind_of(doc).name, tables.ladder_report)(doc)


PRINT = recording.Printer(markdown=_report)


def main(argv: list[str] | None = None) -> int:
    cfg, args = config_from_args(argv)
    b = cfg.bench_config()
    joinable = recording.joinable_by(speed.check_joinable, b.device,
                                     {**b.settings(), **cfg.settings()})
    kind = {"settings": settings.KIND, "freezing": freezing.KIND}.get(cfg.run, speed.LADDER_KIND)
    return recording.record_run(PROG, args, kind, cfg, speed.document, PRINT, joinable=joinable,
                                join=speed.join, show_joined=True)


if __name__ == "__main__":
    raise SystemExit(main())
