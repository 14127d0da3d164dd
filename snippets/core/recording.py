"""A measuring command from its flags to its exit code: ``--compare`` and ``--append`` checked
before the run, rows written as they finish, a Ctrl-C that keeps them, the run printed."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from snippets.core import models, process, results, stamps
from snippets.core.cli import check_output, commit_from_env, fail, quiet_cpu_notice


def load_recorded(prog: str, path: Path | None, kind: str) -> dict | None:
    """The results file ``--compare`` names, loaded and checked before the run starts."""
    try:
        return results.load(path, kind) if path else None
    except results.ResultsError as exc:
        fail(prog, str(exc))


def joinable_by(check: Callable[[dict, dict], None], device: str,
                settings: dict) -> Callable[[dict], None]:
    """``--append``'s check: ``check(old, provenance)`` with the provenance this run records."""
    return lambda old: check(old, results.provenance(torch.device(device), settings, commit="-"))


def appending_to(prog: str, output: Path | None, append: bool, kind: str,
                 check: Callable[[dict], None]) -> dict | None:
    """The run ``--append`` adds to, checked before the run starts, not after lost minutes."""
    if not (append and output is not None and output.exists()):
        return None
    try:
        old = results.load(output, kind)
        check(old)
    except results.ResultsError as exc:
        fail(prog, str(exc))
    return old


def run_rows(prog: str, produce: Callable[..., dict], show: Callable[[dict], None], *,
             write: Callable[[dict], None], output: Path | None) -> int:
    """Run ``produce(progress, on_row)``, ``write``-ing after each row so an interrupted run
    keeps them; a spinner on a terminal only; a Ctrl-C shows the finished rows (exit 130)."""
    from rich.console import Console

    err = Console(stderr=True)
    doc: dict = {}
    status = err.status("starting") if err.is_terminal else None

    def save(current: dict) -> None:
        write(current)
        # One update: a signal landing in it leaves the old rows or the new, never none.
        doc.update(current)

    def stopped() -> int:
        interrupt.settle()
        if status:
            status.stop()
        if not doc.get("rows"):
            err.print("interrupted before any row finished")
            return interrupt.exit_code
        show(doc)
        err.print(f"interrupted: {len(doc['rows'])} finished rows kept")
        return interrupt.exit_code

    interrupt = process.Interrupt(last_words=stopped)

    def progress(message: str) -> None:
        interrupt.check()  # between steps: a Ctrl-C that torch swallowed stops the run here
        if status:
            status.update(message)

    try:
        with interrupt.installed():
            if status:
                status.start()
            save(produce(progress, save))
    except (models.SpecError, results.ResultsError) as exc:  # a factory that builds nothing;
        fail(prog, str(exc))  # an --append file that cannot take a row of this run
    except OSError as exc:
        fail(prog, f"--output {output}: {exc.strerror}")
    except KeyboardInterrupt:
        pass  # every finished row is already on disk: show them and stop, below
    finally:
        if status:
            status.stop()
    if interrupt.seen:  # also a Ctrl-C that torch swallowed in the run's last step
        return stopped()
    show(doc)
    return 0


@dataclass(frozen=True)
class Printer:
    """How a command prints a run in each ``--format`` (JSON, Markdown with its stamp, a
    terminal table), and a ``--compare`` file's comparison after it."""

    markdown: Callable[[dict], str]
    rich: Callable[[dict], object] | None = None
    compare_markdown: Callable[[dict, dict], str] | None = None
    compare_rich: Callable[[dict, dict], object] | None = None

    @classmethod
    def of_rows(cls, markdown_table: Callable[[list], str], **shown: Callable) -> Printer:
        """A printer whose Markdown is ``markdown_table(doc["rows"])``."""
        return cls(markdown=lambda doc: markdown_table(doc["rows"]), **shown)

    def __call__(self, doc: dict, fmt: str, recorded: dict | None = None) -> None:
        if fmt == "json":
            print(json.dumps(doc, indent=1))
            return
        from rich.console import Console

        out = Console(width=None if sys.stdout.isatty() else 200)
        table = fmt != "markdown" and self.rich is not None
        if table:
            out.print(self.rich(doc))
        else:
            print(self.markdown(doc) + "\n\n" + stamps.stamp(doc, "this run"))
        if recorded is None:
            return
        if table and self.compare_rich is not None:
            out.print(self.compare_rich(doc, recorded))
        else:
            print("\n" + self.compare_markdown(doc, recorded))


def record(prog: str, args: argparse.Namespace, kind: str,
           produce: Callable[[Callable, Callable, dict | None], dict],
           show: Printer | Callable[[dict, dict | None], None], *,
           joinable: Callable[[dict], None] | None = None,
           join: Callable[[dict, dict], dict] | None = None, show_joined: bool = False) -> int:
    """A measuring command from its flags to its exit code: files checked (``joinable(old)``
    for ``--append``), ``produce(progress, on_row, old)`` run, each state written (``join``-ed
    to the old rows), and the last shown (joined with ``show_joined``)."""
    quiet_cpu_notice()
    recorded = load_recorded(prog, getattr(args, "compare", None), kind)
    check_output(prog, args.output)
    old = (appending_to(prog, args.output, args.append, kind, joinable)
           if joinable is not None else None)

    def joined(doc: dict) -> dict:
        return join(old, doc) if old and join is not None else doc

    def display(doc: dict, recorded: dict | None) -> None:
        if isinstance(show, Printer):
            show(doc, args.format, recorded)
        else:
            show(doc, recorded)

    def write(doc: dict) -> None:
        if args.output:
            results.write_atomic(args.output, joined(doc))

    return run_rows(prog, lambda progress, on_row: produce(progress, on_row, old),
                    lambda doc: display(joined(doc) if show_joined else doc, recorded),
                    write=write, output=args.output)


def record_run(prog: str, args: argparse.Namespace, kind: str, cfg: object,
               document: Callable[..., dict], show: Printer, *,
               joinable: Callable[[dict], None] | None = None,
               join: Callable[[dict, dict], dict] | None = None, show_joined: bool = False,
               with_old: bool = False, extra: dict | None = None) -> int:
    """``record`` for a run of ``document(cfg, progress, on_row=, commit=, **extra)`` (and
    ``old=`` where ``with_old``)."""
    commit = commit_from_env()
    given = dict(extra or {})

    def produce(progress: Callable[[str], None], on_row: Callable[[dict], None],
                old: dict | None) -> dict:
        return document(cfg, progress, on_row=on_row, commit=commit, **given,
                        **({"old": old} if with_old else {}))

    return record(prog, args, kind, produce, show, joinable=joinable, join=join,
                  show_joined=show_joined)
