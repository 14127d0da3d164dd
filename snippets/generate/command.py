"""The command line every generation tool shares (``python -m snippets.generate`` and its
``ladder``, ``traps`` and ``hf``): flags from the tool's config, the per-device defaults checked
before the run, a progress line per step on stderr where no terminal shows the spinner, the file
written after every row, and the run shown in the ``--format`` asked for."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snippets.core import cli, config, flags, recording


@dataclass(frozen=True)
class Tool:
    """One generation command, ``run(cfg, commit=, progress=, on_row=)`` behind its config's
    flags. ``needs``: why it cannot run here, or None. A run of many GPU minutes asks for
    ``--output`` (``output_required``), so that no finished row is lost."""

    prog: str
    kind: str
    cls: type
    defaults: dict[str, dict[str, Any]]
    run: Callable[..., dict]
    show: recording.Printer
    output_required: bool = False
    needs: Callable[[], str | None] = lambda: None

    def parser(self) -> cli.Parser:
        p = cli.Parser(prog=self.prog, description=flags.about(self.cls))
        flags.declare(p, self.cls, self.defaults)
        cli.add_output(p, required=self.output_required)
        return p

    def main(self, argv: list[str] | None = None) -> int:
        args = self.parser().parse_args(argv)
        try:
            # the per-device defaults too must hold (a --cache below their prompt)
            cfg = flags.build(self.prog, self.cls, args).resolve()
        except config.ConfigError as exc:
            cli.fail(self.prog, f"argument --{exc.name}: {exc}" if exc.name else str(exc))
        if (missing := self.needs()) is not None:
            cli.fail(self.prog, missing)
        commit = cli.commit_from_env()

        def produce(progress: Callable[[str], None], on_row: Callable[[dict], None], _old
                    ) -> dict:
            def say(message: str) -> None:
                progress(message)
                if not sys.stderr.isatty():  # a terminal has the spinner; a log keeps each line
                    print(f"{self.prog}: {message}", file=sys.stderr, flush=True)
            return self.run(cfg, commit=commit, progress=say, on_row=on_row)

        args.append = False  # a run of its own: these files are not joined
        return recording.record(self.prog, args, self.kind, produce, self.show)
