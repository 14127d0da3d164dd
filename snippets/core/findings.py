"""What every topic's findings share: the verdict of a measured ratio, and a span."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Verdict(str, enum.Enum):
    """A speedup, give or take half its IQR (where half the rounds fell), above, around or below
    1: a band holding 1.00 is one this run cannot tell from none."""

    PAYS = "pays"
    WITHIN_NOISE = "within noise"
    SLOWER = "slower"


def verdict(ratio: float, spread: float = 0.0) -> Verdict:
    """The verdict of ``ratio`` whose per-round ratios have IQR ``spread``."""
    if ratio - spread / 2 > 1:
        return Verdict.PAYS
    if ratio + spread / 2 < 1:
        return Verdict.SLOWER
    return Verdict.WITHIN_NOISE


@dataclass(frozen=True)
class Span:
    """The lowest and highest of a set of values (speedups over several rows, say)."""

    low: float
    high: float

    @classmethod
    def of(cls, values: list[float] | tuple[float, ...]) -> Span:
        return cls(min(values), max(values))
