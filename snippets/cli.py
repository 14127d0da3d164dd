"""What the three command-line tools share: one-line errors with exit code 2, and list parsing.

A user's mistake is answered with ``prog: error: <what is wrong>`` on one line and exit code 2,
never a traceback; argparse's own usage dump is replaced by that line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import NoReturn, TypeVar

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
