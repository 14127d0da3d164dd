"""What the command-line tools share: one-line errors with exit code 2, list parsing, the flags
that mean the same in every tool, the device and output checks, and the one environment variable
a run reads. The flow from a measuring command's flags to its printed run is ``recording``."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import torch

from snippets.core import models, results

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


FORMATS = ("table", "markdown", "json")
# --append's help where the file must hold a run of this one's settings (train, scale, speed, zoo).
APPEND_SAME_SETTINGS = "extend --output (same settings, device)"


def add_output(p: argparse.ArgumentParser, formats: tuple[str, ...] = FORMATS, *,
               required: bool = False) -> None:
    """``--format`` (the first of ``formats`` by default) and ``--output``. A tool's ``--append``
    and ``--compare`` follow in its own parser (``add_compare``)."""
    p.add_argument("--format", choices=formats, default=formats[0])
    p.add_argument("--output", type=Path, required=required,
                   help="results file, saved per row")


def add_compare(p: argparse.ArgumentParser) -> None:
    """``--compare FILE``: the run beside a recorded one, the settings that differ named."""
    p.add_argument("--compare", type=Path, metavar="FILE", help="a recorded run to compare")


def add_runs(p: argparse.ArgumentParser, runs: dict[str, str], *, required: bool = False
             ) -> Any:
    """One switch per run a command makes (``runs``: each one's help, the docstrings of a
    class's fields, ``flags.docstrings``), at most one of them given: ``args.run`` is its name,
    or None. The group is returned for a choice that is not a switch (``explain``'s spec)."""
    group = p.add_mutually_exclusive_group(required=required)
    for name, text in runs.items():
        group.add_argument(f"--{name}", dest="run", action="store_const", const=name, help=text)
    return group


def add_model(p: argparse.ArgumentParser, *, logits: bool = False) -> None:
    """``--model``, the user's own factory (repeatable; given alone, it replaces the built-in
    models), beside a config's ``--models``; ``logits``: the tool trains, so the user's module
    must return class logits."""
    p.add_argument("--model", action="append", default=[], metavar="PKG.MODULE:FACTORY",
                   help="factory(batch_size) -> (classifier, input), repeatable" if logits
                   else "factory(batch_size) -> (module, input), repeatable")


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


def commit_from_env() -> str | None:
    """The commit a run records where the tree has no git (a copy on a GPU builder):
    ``SNIPPETS_COMMIT``, read once at the start of a command."""
    return os.environ.get("SNIPPETS_COMMIT") or None


def quiet_cpu_notice() -> None:
    """Inductor's C++ backend logs "No CUDA runtime is found" on every CPU-only machine: expected
    there, and alarming to a reader of a CPU table or report, so it is kept out of the output."""
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
