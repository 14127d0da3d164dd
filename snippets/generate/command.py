"""The command line both of the generation page's recording tools share (``ladder``, ``traps``):
flags from the tool's config, the per-device defaults checked before the run, a progress line
per step on stderr where no terminal shows the spinner, the file written after every row, and a
Markdown table of the run at the end."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from snippets.core import cli, config, flags


def main(argv: list[str] | None, *, prog: str, kind: str, description: str, cls: type,
         defaults: dict[str, dict[str, Any]], run: Callable[..., dict],
         table: Callable[[dict], str]) -> int:
    """``run(cfg, commit=, progress=, on_row=)`` under ``cli.record``, from ``cls``'s flags."""
    p = cli.Parser(prog=prog, description=description)
    flags.declare(p, cls, defaults)
    p.add_argument("--output", type=Path, required=True, help="results file, written row by row")
    args = p.parse_args(argv)
    cfg = flags.build(prog, cls, args)
    try:
        cfg.resolve()  # the per-device defaults too must hold (a --cache below their prompt)
    except config.ConfigError as exc:
        cli.fail(prog, str(exc))
    commit = cli.commit_from_env()

    def produce(progress: Callable[[str], None], on_row: Callable[[dict], None], _old) -> dict:
        def say(message: str) -> None:
            progress(message)
            if not sys.stderr.isatty():  # a terminal has the spinner; a log keeps each line
                print(f"{prog}: {message}", file=sys.stderr, flush=True)
        return run(cfg, commit=commit, progress=say, on_row=on_row)

    args.append = False  # a run of its own: these files are not joined
    return cli.record(prog, args, kind, produce, lambda doc, _: print(table(doc)))
