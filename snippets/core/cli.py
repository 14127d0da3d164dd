"""What the command lines share: one-line errors (exit 2), list parsing, common flags, the device
and output checks; a measuring command's flow is ``recording``."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import torch

from snippets.core import config, models, results

T = TypeVar("T")
USAGE_EXIT = 2


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        fail(self.prog, message)


def fail(prog: str, message: str) -> NoReturn:
    print(f"{prog}: error: {message}", file=sys.stderr)
    raise SystemExit(USAGE_EXIT)


def csv_of(item: Callable[[str], T], what: str) -> Callable[[str], tuple[T, ...]]:
    """An argparse type for a comma-separated list: ``--batch-sizes 1,32``."""

    def parse(text: str) -> tuple[T, ...]:
        parts = [p.strip() for p in text.split(",")]
        if not all(parts):
            raise argparse.ArgumentTypeError(f"empty item in {what} {text!r}")
        try:
            return tuple(item(p) for p in parts)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a whole number") from None


def positive_int(text: str) -> int:
    value = whole(text)
    if (message := config.wrong(config.Rule(positive=True), value, False)) is not None:
        raise ValueError(message)
    return value


def positive(text: str) -> int:
    try:
        return positive_int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def non_negative(text: str) -> int:
    return 0 if text.strip() == "0" else positive(text)


FORMATS = ("table", "markdown", "json")
APPEND_SAME_SETTINGS = "extend --output (same settings, device)"


def add_output(p: argparse.ArgumentParser, formats: tuple[str, ...] = FORMATS, *,
               required: bool = False) -> None:
    p.add_argument("--format", choices=formats, default=formats[0])
    p.add_argument("--output", type=Path, required=required,
                   help="results file, saved per row")


def add_compare(p: argparse.ArgumentParser) -> None:
    p.add_argument("--compare", type=Path, metavar="FILE", help="a recorded run to compare")


def add_runs(p: argparse.ArgumentParser, runs: dict[str, str], *, required: bool = False
             ) -> Any:
    """A switch per run (``runs``: name to help), at most one given, as ``args.run``."""
    group = p.add_mutually_exclusive_group(required=required)
    for name, text in runs.items():
        group.add_argument(f"--{name}", dest="run", action="store_const", const=name, help=text)
    return group


def add_model(p: argparse.ArgumentParser, *, logits: bool = False) -> None:
    """``--model``, the user's own factory, repeatable; ``logits``: the tool trains on it."""
    p.add_argument("--model", action="append", default=[], metavar="PKG.MODULE:FACTORY",
                   help="factory(batch_size) -> (classifier, input), repeatable" if logits
                   else "factory(batch_size) -> (module, input), repeatable")


def user_models(prog: str, specs: list[str], models_given: bool
                ) -> tuple[tuple[tuple[str, Callable], ...], bool]:
    """``--model``'s factories, and whether they replace the built-in models (no ``--models``)."""
    try:
        user = tuple((spec, models.load_factory(spec)) for spec in specs)
    except models.SpecError as exc:
        fail(prog, str(exc))
    return user, bool(user) and not models_given


def check_append(prog: str, append: bool, output: Path | None) -> None:
    if append and not output:
        fail(prog, "--append needs --output")


def device(prog: str, text: str) -> str:
    """Check ``--device``: auto (left to the config), cpu or cuda[:N] where CUDA is."""
    if text in ("auto", "cpu"):
        return text
    if not text.startswith("cuda"):
        fail(prog, f"unknown device {text!r}")
    if not torch.cuda.is_available():
        fail(prog, "this machine has no CUDA device")
    try:
        index = torch.device(text).index
    except RuntimeError:
        fail(prog, f"malformed device {text!r}")
    if index is not None and index >= torch.cuda.device_count():
        fail(prog, f"no CUDA device {index}")
    return text


def check_output(prog: str, path: Path | None) -> None:
    """Fail before a run, not after it, where ``--output`` cannot be written."""
    if path is not None:
        try:
            results.check_writable(path)
        except results.ResultsError as exc:
            fail(prog, str(exc))


def commit_from_env() -> str | None:
    """``SNIPPETS_COMMIT``: the commit a run records where the tree has no git."""
    return os.environ.get("SNIPPETS_COMMIT") or None


def quiet_cpu_notice() -> None:
    """Silence "No CUDA runtime is found", which Inductor logs on every CPU-only machine."""
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
