"""What every topic's findings share: the verdict of a measured ratio, and the form a finding
takes."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Verdict(str, enum.Enum):
    """Whether a speedup is one: the ratio, give or take half the IQR of its paired per-round
    ratios, above 1, around 1 or below it. Half the IQR either side is the band in which half
    of the rounds fell: a ratio whose band holds 1.00 is one this run cannot tell from none."""

    PAYS = "pays"
    WITHIN_NOISE = "within noise"
    SLOWER = "slower"


def verdict(ratio: float, spread: float = 0.0) -> Verdict:
    """The verdict of a speedup ``ratio`` (eager's time over the variant's) whose paired ratios
    spread over ``spread`` (their IQR)."""
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
