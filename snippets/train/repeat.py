"""Two runs of the same commands, as data: each compiled speedup in both, and for those that
moved, which step moved and how fast the host ran each time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snippets.train.tables import Key, by_key, own_eager, step_median

# Two runs "agree" on a speedup when they differ by at most this fraction of the first run's.
AGREE = 0.05


def command_date(doc: dict[str, Any], row: dict[str, Any]) -> str:
    """When ``row``'s command started (ISO 8601: strings order as dates)."""
    prov = doc["provenance"]
    parts, part = prov.get("parts") or [], row.get("part", 0)
    return (parts[part] if part < len(parts) else prov).get("date", "")


@dataclass(frozen=True)
class Pair:
    """A speedup in each run, run 2's apart from run 1's (a fraction); ``later``: run 1's row
    was measured after run 2."""

    key: Key
    first: float
    second: float | None
    apart: float | None
    later: bool

    @property
    def agrees(self) -> bool:
        return self.apart is not None and abs(self.apart) <= AGREE


@dataclass(frozen=True)
class Moved:
    """A speedup that moved: eager's step, the variant's and the host canary (higher is
    slower), run 1 then run 2."""

    key: Key
    later: bool
    eager_ms: tuple[float | None, float | None]
    variant_ms: tuple[float | None, float | None]
    canary_us: tuple[float | None, float | None]
    eager_moved_more: bool


@dataclass(frozen=True)
class Agreement:
    pairs: tuple[Pair, ...]
    moved: tuple[Moved, ...]
    later_dates: tuple[str, ...]  # "2026-01-01 05:00": when run 1's later commands ran (UTC)
    mark: float = AGREE

    @property
    def both(self) -> int:
        return sum(p.apart is not None for p in self.pairs)

    @property
    def agree(self) -> int:
        return sum(p.agrees for p in self.pairs)

    @property
    def apart(self) -> tuple[Pair, ...]:
        return tuple(p for p in self.pairs if p.apart is not None and not p.agrees)

    @property
    def moved_count(self) -> int:
        return len(self.moved)

    @property
    def eager_moved_more(self) -> int:
        return sum(m.eager_moved_more for m in self.moved)


def agreement(doc: dict[str, Any], again: dict[str, Any]) -> Agreement:
    first, second = by_key(doc), by_key(again)
    last = max((command_date(again, r) for r in again["rows"]), default="")
    later = {k for k, r in first.items() if k in second and command_date(doc, r) > last}
    pairs = []
    for key, row in first.items():
        a, b = row.get("speedup"), (second.get(key) or {}).get("speedup")
        # A speedup against eager rounds the file does not keep is not shown beside its table's
        # rows (``findings.unpaired``); the agreement table follows the results table.
        if key[2] == "eager" or a is None or own_eager(doc, row) is None:
            continue
        pairs.append(Pair(key, a, b, (b - a) / a if b is not None else None, key in later))
    moved = []
    for p in pairs:
        if p.apart is None or p.agrees:
            continue
        a, b = first[p.key], second[p.key]
        ea, eb = own_eager(doc, a), own_eager(again, b)
        change = [abs(step_median(y) / step_median(x) - 1) if step_median(x) and step_median(y)
                  else None for x, y in ((ea, eb), (a, b))]
        moved.append(Moved(p.key, p.later, (step_median(ea), step_median(eb)),
                           (step_median(a), step_median(b)),
                           (a.get("host_canary_us"), b.get("host_canary_us")),
                           None not in change and change[0] > change[1]))
    dates = sorted({command_date(doc, first[k])[:16].replace("T", " ") for k in later
                    if k[2] != "eager"})
    return Agreement(tuple(pairs), tuple(moved), tuple(dates))
