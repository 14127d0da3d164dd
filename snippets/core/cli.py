"""What the command-line tools share: one-line errors with exit code 2, list parsing, the flags
that mean the same in every tool, the device and output checks, the one environment variable a run
reads, and the flow from a measuring command's flags to its printed run (``record``)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn, TypeVar

import torch

from snippets.core import models, process, results, stamps

T = TypeVar("T")
USAGE_EXIT = 2


class UsageError(Exception):
    """A mistake in what the user asked for; the message is the whole answer."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        fail(self.prog, message)


def fail(prog: str, message: str) -> NoReturn:
    print(f"{prog}: error: {message}", file=sys.stderr)
    raise SystemExit(USAGE_EXIT)


def csv_of(item: Callable[[str], T], what: str) -> Callable[[str], tuple[T, ...]]:
    """An argparse type for comma-separated lists, e.g. ``--batch-sizes 1,32``."""

    def parse(text: str) -> tuple[T, ...]:
        parts = [p.strip() for p in text.split(",")]
        if not all(parts):
            raise argparse.ArgumentTypeError(f"empty item in {what} list {text!r}")
        try:
            return tuple(item(p) for p in parts)
        except (ValueError, UsageError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise ValueError(f"{value} is not a positive number")
    return value


def positive(text: str) -> int:
    """An argparse type for a positive whole number."""
    try:
        return positive_int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def non_negative(text: str) -> int:
    return 0 if text.strip() == "0" else positive(text)


DEVICE_HELP = "auto (CUDA if present), cpu, cuda, cuda:N"
FORMATS = ("table", "markdown", "json")


# --append's help where the file must hold a run of this one's settings (train, scale).
APPEND_SAME_SETTINGS = ("add this run's rows to the --output file, which must hold a run of the "
                        "same settings on the same device (a run split over commands)")


def add_output(p: argparse.ArgumentParser, formats: tuple[str, ...] = FORMATS) -> None:
    """``--format`` (the first of ``formats`` by default) and ``--output``. A tool's ``--append``
    and ``--compare`` follow in its own parser (``add_compare``)."""
    p.add_argument("--format", choices=formats, default=formats[0])
    p.add_argument("--output", type=Path, help="write the results file here, row by row")


def add_compare(p: argparse.ArgumentParser, differing: str) -> None:
    """``--compare FILE``, whose table names the settings (``differing``) that differ from it."""
    p.add_argument("--compare", type=Path, metavar="FILE",
                   help="print this run beside a recorded results file; settings that differ "
                        f"({differing}) are named above the table")


def add_runs(p: argparse.ArgumentParser, runs: dict[str, str]) -> None:
    """One switch per run a command makes (``runs``: each one's help), at most one of them
    given: ``args.run`` is its name, or None."""
    group = p.add_mutually_exclusive_group()
    for name, text in runs.items():
        group.add_argument(f"--{name}", dest="run", action="store_const", const=name, help=text)


def add_model(p: argparse.ArgumentParser, *, logits: bool = False) -> None:
    """``--model``, the user's own factory (repeatable), beside a config's ``--models``;
    ``logits``: the tool trains, so the user's module must return class logits."""
    p.add_argument("--model", action="append", default=[], metavar="PKG.MODULE:FACTORY",
                   help="your own model: factory(batch_size) returns (module, example_input)"
                        + (", the module returning class logits; " if logits else "; ")
                        + "repeatable; given alone, it replaces the built-in models")


def user_models(prog: str, specs: list[str], models_given: bool
                ) -> tuple[tuple[tuple[str, Callable], ...], bool]:
    """``--model``'s factories, loaded (a spec that fails is one line), and whether they replace
    the built-in models: they do when ``--models`` was not given."""
    try:
        user = tuple((spec, models.load_factory(spec)) for spec in specs)
    except models.SpecError as exc:
        fail(prog, str(exc))
    return user, bool(user) and not models_given


def check_append(prog: str, append: bool, output: Path | None) -> None:
    if append and not output:
        fail(prog, "--append needs --output, the file to add the rows to")


def device(prog: str, text: str) -> str:
    """Check a ``--device`` value: auto, cpu or cuda[:N]; CUDA asked for without CUDA is the
    user's mistake. ``auto`` is left for the config to resolve."""
    if text in ("auto", "cpu"):
        return text
    if not text.startswith("cuda"):
        fail(prog, f"unknown device {text!r}; choose from auto, cpu, cuda, cuda:N")
    if not torch.cuda.is_available():
        fail(prog, f"--device {text} asked for, but this machine has no CUDA device")
    try:
        index = torch.device(text).index
    except RuntimeError:
        fail(prog, f"malformed device {text!r}")
    if index is not None and index >= torch.cuda.device_count():
        fail(prog, f"--device {text}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    return text


def check_output(prog: str, path: Path | None) -> None:
    """Fail before a run, not after it, if ``--output`` cannot be written."""
    if path is not None:
        try:
            results.check_writable(path)
        except results.ResultsError as exc:
            fail(prog, str(exc))


def load_recorded(prog: str, path: Path | None, kind: str) -> dict | None:
    """The results file ``--compare`` names, loaded and checked before the run starts."""
    try:
        return results.load(path, kind) if path else None
    except results.ResultsError as exc:
        fail(prog, str(exc))


def commit_from_env() -> str | None:
    """The commit a run records where the tree has no git (a copy on a GPU builder):
    ``SNIPPETS_COMMIT``, read once at the start of a command."""
    return os.environ.get("SNIPPETS_COMMIT") or None


def joinable_by(check: Callable[[dict, dict], None], device: str,
                settings: dict) -> Callable[[dict], None]:
    """``--append``'s check of the recorded run against this one: ``check(old, provenance)``
    (a tool's ``check_joinable``) with the provenance this run will record on ``device``."""
    return lambda old: check(old, results.provenance(torch.device(device), settings, commit="-"))


def appending_to(prog: str, output: Path | None, append: bool, kind: str,
                 check: Callable[[dict], None]) -> dict | None:
    """The recorded run that ``--append`` adds to, checked (``check(old)`` raises ResultsError)
    before the run starts, so a file that cannot take its rows is one line, not lost minutes."""
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
    """Run a command's producer of a results document the way the measuring commands do.

    ``produce(progress, on_row)`` returns the finished document; ``on_row`` sees it after each
    row and ``write`` saves it then, so an interrupted run keeps every finished row. A spinner
    shows progress on a terminal only (a pipe or a file gets the results and nothing else). A
    Ctrl-C, even one torch swallowed, ends with the finished rows shown and exit 130; a model
    spec that fails, or an output that cannot be written, is one line and exit 2.
    """
    from rich.console import Console

    err = Console(stderr=True)
    doc: dict = {}
    status = err.status("starting") if err.is_terminal else None

    def save(current: dict) -> None:
        doc.clear()
        doc.update(current)  # kept here too: an interrupted run still shows its finished rows
        write(current)

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
    except models.SpecError as exc:
        fail(prog, str(exc))
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
    """How a command prints a run in each ``--format``: JSON as recorded; Markdown as
    ``markdown(doc)`` with the run's stamp under it; a terminal's table as ``rich(doc)``. A
    ``--compare`` file's comparison follows: ``compare_rich`` in a terminal's table,
    ``compare_markdown`` otherwise (also in a terminal, for a tool with no rich one)."""

    markdown: Callable[[dict], str]
    rich: Callable[[dict], object] | None = None
    compare_markdown: Callable[[dict, dict], str] | None = None
    compare_rich: Callable[[dict, dict], object] | None = None

    @classmethod
    def of_rows(cls, markdown_table: Callable[[list], str], **shown: Callable) -> Printer:
        """A printer whose Markdown is ``markdown_table(doc["rows"])``; ``shown`` as above."""
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


def quiet_cpu_notice() -> None:
    """Inductor's C++ backend logs "No CUDA runtime is found" on every CPU-only machine: expected
    there, and alarming to a reader of a CPU table or report, so it is kept out of the output."""
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)


def record(prog: str, args: argparse.Namespace, kind: str,
           produce: Callable[[Callable, Callable, dict | None], dict],
           show: Printer | Callable[[dict, dict | None], None], *,
           joinable: Callable[[dict], None] | None = None,
           join: Callable[[dict, dict], dict] | None = None, show_joined: bool = False) -> int:
    """A measuring command from its parsed flags to its exit code, the way they all go.

    Before the run: the ``--compare`` file is loaded, ``--output`` checked, and with ``--append``
    the file's run checked by ``joinable(old)``. Then ``produce(progress, on_row, old)`` runs under
    ``run_rows``; each finished state goes to ``--output`` (``join(old, doc)`` where the file's
    rows stay beside this run's) and the last is shown as ``show(doc, recorded)`` (a
    ``Printer``: in the ``--format`` asked for): this run's rows alone, or the joined ones with
    ``show_joined``.
    """
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
    """``record`` for a tool whose run is ``document(cfg, progress, on_row=, commit=, **extra)``
    at this checkout's commit, also given the appended-to run as ``old=`` where ``with_old``."""
    commit = commit_from_env()
    given = dict(extra or {})

    def produce(progress: Callable[[str], None], on_row: Callable[[dict], None],
                old: dict | None) -> dict:
        return document(cfg, progress, on_row=on_row, commit=commit, **given,
                        **({"old": old} if with_old else {}))

    return record(prog, args, kind, produce, show, joinable=joinable, join=join,
                  show_joined=show_joined)
