"""``python -m snippets.speed``: flags onto one SpeedConfig, rows onto a file, tables out.

Thin on purpose: the measuring is in ``snippets.speed``, the tables in ``snippets.speed.tables``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from snippets import bench, speed
from snippets.core import cli, config, models, results
from snippets.speed import freezing, ladder, settings, tables

PROG = "python -m snippets.speed"


def parser() -> cli.Parser:
    d = speed.DEFAULTS

    def default(name: str) -> str:
        return config.help_default(d, name)

    p = cli.Parser(prog=PROG, description="Climb the speed ladder against the device's own "
                                          "ceilings, measure the backend settings per mode, or "
                                          "check the ways of asking for freezing.")
    run = p.add_mutually_exclusive_group()
    run.add_argument("--ladder", action="store_true",
                     help="eager, then one step at a time, each read against the matmul peak "
                          "and copy bandwidth measured first; the fastest rung profiled")
    run.add_argument("--settings", action="store_true",
                     help="cudnn.benchmark off and on (and TF32, where the dtype is fp32) for "
                          "each mode, timed together; a verdict per mode")
    run.add_argument("--freezing", action="store_true",
                     help="freezing asked for as a compile option alone, and with Inductor's "
                          "switch on too, against none, timed together; on a GPU, what each "
                          "CUDA-graph replay copies")
    cli.add_models(p, tuple(models.BUILTIN), default, chosen=speed.SpeedConfig.models)
    p.add_argument("--dtype", choices=list(bench.DTYPES), help=default("dtype"))
    cli.add_common(p, default)
    p.add_argument("--modes", type=cli.csv_of(cli.one_of(bench.MODES, "mode"), "mode"),
                   help=f"--settings: the modes whose settings are swept {default('modes')}")
    p.add_argument("--rungs", type=cli.csv_of(cli.one_of(ladder.KEYS, "rung"), "rung"),
                   help=f"--ladder: the rungs to climb, from {', '.join(ladder.KEYS)}; eager is "
                        "always climbed (default: all but coordinate-descent, max-autotune and "
                        "graph-timed-autotune, each asked for by name)")
    p.add_argument("--profile-calls", type=cli.non_negative,
                   help=f"--ladder: calls of the fastest rung profiled, 0 for none "
                        f"{default('profile_calls')}")
    p.add_argument("--backends-from", type=Path, metavar="FILE",
                   help="--ladder: run each mode under the settings a --settings results file "
                        "chose for it, and record that choice")
    cli.add_output(p, ("markdown", "json"))
    p.add_argument("--append", action="store_true",
                   help="add this run's rows to --output, a file of the same run, device and "
                        "torch, keeping every row it already holds")
    return p


def config_from_args(argv: list[str] | None) -> tuple[speed.SpeedConfig, object]:
    args = parser().parse_args(argv)
    device = cli.device(PROG, args.device)
    what = ("settings" if args.settings else "ladder" if args.ladder else
            "freezing" if args.freezing else None)
    if what is None:
        cli.fail(PROG, "choose one run: --ladder, --settings or --freezing")
    wrong = {"ladder": ("modes",), "settings": ("rungs", "profile_calls", "backends_from"),
             "freezing": ("modes", "rungs", "profile_calls", "backends_from")}[what]
    for name in wrong:
        if getattr(args, name) is not None:
            cli.fail(PROG, f"--{name.replace('_', '-')} does not apply to --{what}")
    cli.check_append(PROG, args.append, args.output)
    user, only_user = cli.user_models(PROG, args.model, "--models" in " ".join(argv or sys.argv))
    cfg = speed.SpeedConfig(
        run=what, models=() if only_user else args.models, factories=user,
        batch_sizes=args.batch_sizes, dtype=args.dtype, device=device, rounds=args.rounds,
        warm_rounds=args.warm_rounds, modes=args.modes, rungs=args.rungs,
        profile_calls=args.profile_calls)
    if args.backends_from:
        try:
            cfg = speed.with_evidence(cfg, results.load(args.backends_from, settings.KIND))
        except results.ResultsError as exc:
            cli.fail(PROG, str(exc))
    try:
        return cfg.resolve(), args
    except ValueError as exc:
        cli.fail(PROG, str(exc))


def _report(doc: dict) -> str:
    return {settings.KIND: tables.settings_report, freezing.KIND: tables.freezing_report}.get(
        results.kind_of(doc).name, tables.ladder_report)(doc)


PRINT = cli.Printer(markdown=_report)


def main(argv: list[str] | None = None) -> int:
    cfg, args = config_from_args(argv)

    def joinable(old: dict) -> None:
        b = cfg.bench_config()
        speed.check_joinable(old, results.provenance(
            torch.device(b.device), {**b.settings(), **cfg.settings()}, commit="-"))

    kind = {"settings": settings.KIND, "freezing": freezing.KIND}.get(cfg.run, speed.LADDER_KIND)
    commit = cli.commit_from_env()
    return cli.record(
        PROG, args, kind, lambda progress, on_row, _: speed.document(
            cfg, progress, on_row=on_row, commit=commit),
        lambda doc, _: PRINT(doc, args.format), joinable=joinable, join=speed.join,
        show_joined=True)


if __name__ == "__main__":
    raise SystemExit(main())
