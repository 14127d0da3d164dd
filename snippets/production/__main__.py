"""``python -m snippets.production``: one of the production page's runs, flags onto its config,
rows onto a file, a table out."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

import torch

from snippets import production
from snippets.core import cli, config, flags, process, recording, results
from snippets.production import hazards, modes, startup, stream, tables

PROG = "python -m snippets.production"


@dataclass(frozen=True)
class Runs:
    """Start-up paths, a request stream, the compile modes and the CUDA-graph hazards, each
    measured in its own run (one field per run; each run's flags are its config's).

    Attributes:
        startup: every start-up path in fresh processes: seconds to the first answer and to steady
            state, ms per call
        stream: a replayed request stream under each warm-up strategy
        modes: every compile mode with an empty, then a warm cache (the benchmark, run twice)
        hazards: CUDA-graph hazards and their fixes (a CUDA device only)
    """

    startup: bool = False
    stream: bool = False
    modes: bool = False
    hazards: bool = False


RUNS = flags.docstrings(Runs)


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(Runs))
    cli.add_runs(p, RUNS)
    # Each run's flags are its config's fields; --device, --models and --rounds are declared
    # once, with --startup's, and serve --modes too.
    flags.declare(p.add_argument_group("--startup (--models, --rounds: --modes too)"),
                  startup.StartupConfig, startup.DEFAULTS)
    flags.declare(p.add_argument_group("--modes"), modes.ModesConfig, modes.DEFAULTS,
                  skip=("device", "models", "rounds"))
    flags.declare(p.add_argument_group("--stream"), stream.StreamConfig, stream.DEFAULTS,
                  skip=("device",))
    cli.add_output(p, ("markdown", "json"))
    # --startup adds its rows as more repetitions; --modes replaces a block measured again
    # whole (docs/cli.md, the rule of --append)
    p.add_argument("--append", action="store_true", help="extend --output (same run/device/torch)")
    return p


def _job(args: Any, device: str) -> tuple[str, Any, Any]:
    """(kind, make the document, --append's join) for the run the flags ask for."""
    what = args.run
    if what is None:
        cli.fail(PROG, f"choose one run: {', '.join('--' + r for r in RUNS)}")
    for flag in ("size", "mode"):
        if getattr(args, flag, None) and what != "stream":
            cli.fail(PROG, f"--{flag} needs --stream")
    if what == "startup":
        cfg = flags.build(PROG, startup.StartupConfig, args, device=device)
        return (startup.KIND, lambda **kw: startup.document(cfg, **kw),
                lambda old, doc: production.merge(old, doc, startup.row_key))
    if what == "modes":
        cfg = flags.build(PROG, modes.ModesConfig, args, device=device)
        return (modes.KIND, lambda **kw: modes.document(cfg, **kw),
                lambda old, doc: production.merge(old, doc, modes.row_key))
    if args.append:
        cli.fail(PROG, "--append is for --startup, --modes")
    if what == "stream":
        cfg = flags.build(PROG, stream.StreamConfig, args, device=device)
        return stream.KIND, lambda **kw: stream.document(cfg, **kw), None
    if config.resolve_device(device) == "cpu":
        cli.fail(PROG, "--hazards needs a CUDA device")
    return hazards.KIND, lambda **kw: hazards.document(config.resolve_device(device), **kw), None


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    device = cli.device(PROG, args.device or "auto")
    kind, make, join = _job(args, device)
    cli.check_append(PROG, args.append, args.output)

    def joinable(old: dict) -> None:  # checked before the run, not after its first row
        here = torch.device(config.resolve_device(device))
        production.check_joinable(old, results.provenance(here, {}))

    if production.eager_requested(os.environ):  # read once, here: each child reads it too
        print(f"{production.EAGER_ENV} set: serving eager", file=sys.stderr)
    commit = cli.commit_from_env()

    def produce(progress: Any, on_row: Any, _old: dict | None) -> dict:
        with process.stdout_to_stderr():  # children's prints stay out of --format json
            return make(commit=commit, on_row=on_row, progress=progress)

    return recording.record(PROG, args, kind, produce, recording.Printer(markdown=tables.report),
                            joinable=joinable, join=join, show_joined=True)


if __name__ == "__main__":
    raise SystemExit(main())
