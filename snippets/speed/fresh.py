"""A backend switch measured where it acts: one benchmark process per setting, alternating.

cuDNN keeps a plan per shape whose key holds no ``benchmark`` flag, so timing the switch off and
on inside one process measures whichever setting ran a shape first, twice. Here each setting ran
in processes of its own (``python -m snippets.bench --[no-]cudnn-benchmark``, likewise
``--[no-]tf32``), one results file each in ``<run folder>/<switch's folder>/``; ``of`` reads them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snippets.bench import kinds as bench_kinds  # noqa: F401  the files it reads are bench runs
from snippets.core import columns, render, results, stamps

# Each switch measured this way: its folder beside a run folder's other files (one results file
# per process), and the provenance setting that says which way a process ran.
SWITCHES = {"cudnn-benchmark": "cudnn_benchmark", "tf32": "tf32"}
FOLDER = "cudnn-benchmark"


class Better(str, enum.Enum):
    """Which setting ran faster, where every process pair agrees; ``MIXED`` where they do not."""

    OFF = "off"
    ON = "on"
    MIXED = "mixed"


@dataclass(frozen=True)
class Point:
    """One (model, batch, mode): its median in each process, per setting, in the order run."""

    model: str
    batch: int
    mode: str
    off_ms: tuple[float, ...]
    on_ms: tuple[float, ...]
    off_faster: int  # process pairs in which the setting off ran faster
    better: Better

    @property
    def pairs(self) -> int:
        return min(len(self.off_ms), len(self.on_ms))

    @property
    def won(self) -> tuple[Better, int]:
        """The setting faster in more pairs, and in how many; ``MIXED`` for a tie."""
        on = self.pairs - self.off_faster
        if self.off_faster == on:
            return Better.MIXED, on
        return (Better.OFF, self.off_faster) if self.off_faster > on else (Better.ON, on)


@dataclass(frozen=True)
class Fresh:
    points: tuple[Point, ...]
    processes: int

    def of_mode(self, mode: str) -> tuple[Point, ...]:
        return tuple(p for p in self.points if p.mode == mode)

    def better_in_every_pair(self, mode: str) -> Better | None:
        """The setting that ran faster in every process pair of every batch of ``mode``; None
        where the pairs or the batches disagree."""
        found = {p.better for p in self.of_mode(mode)}
        return found.pop() if len(found) == 1 and Better.MIXED not in found else None

    @property
    def replay(self) -> Better | None:
        """The setting the ``reduce-overhead`` replay, which waits on the GPU, favoured in every
        pair."""
        return self.better_in_every_pair("reduce-overhead")

    @property
    def every_mode(self) -> Better | None:
        """The setting every mode favoured in every pair; None where any mode did not."""
        found = {self.better_in_every_pair(m) for m in ("eager", "default", "reduce-overhead")}
        return found.pop() if len(found) == 1 else None


def recorded(results_dir: Path, folder: str = FOLDER) -> list[dict[str, Any]]:
    """The GPU documents of a switch's ``folder`` (a key of ``SWITCHES``), in the order run."""
    found = [results.load(p) for p in Path(results_dir).glob(f"*/{folder}/*.json")]
    found = [d for d in found if results.device_type_of(d) == "cuda"]
    return sorted(found, key=lambda d: d["provenance"]["date"])


def of(docs: list[dict[str, Any]], folder: str = FOLDER) -> Fresh:
    """Each configuration's medians per setting, over processes in the order they ran."""
    timed: dict[tuple[str, int, str], dict[bool, list[float]]] = {}
    for doc in docs:
        on = bool(doc["provenance"]["settings"][SWITCHES[folder]])
        for r in results.typed_rows(doc):
            if r.timed:
                key = (r.key.model, r.key.batch, r.key.variant)
                timed.setdefault(key, {False: [], True: []})[on].append(r.median)
    points = []
    for (model, bs, mode), by in timed.items():
        off, on = tuple(by[False]), tuple(by[True])
        faster = sum(a < b for a, b in zip(off, on, strict=False))
        pairs = min(len(off), len(on))
        better = (Better.OFF if faster == pairs else Better.ON if faster == 0 else Better.MIXED)
        points.append(Point(model, bs, mode, off, on, faster, better))
    return Fresh(tuple(points), len(docs))


def table(found: Fresh) -> str:
    """A row per configuration: each process's median off, then on, and the setting faster in
    more pairs. No ratio: the medians come from separate processes."""
    def ms(values: tuple[float, ...]) -> str:
        return ", ".join(render.ms(v) for v in values)

    key = (columns.Column("Model", lambda p: p.model, left=True),
           columns.Column("Batch", lambda p: p.batch, left=True),
           columns.Column("Mode", lambda p: p.mode, left=True))
    return columns.markdown(found.points, key, (
        columns.Column("Off, per process", lambda p: ms(p.off_ms), notes=(columns.IN_MS,)),
        columns.Column("On, per process", lambda p: ms(p.on_ms), notes=(columns.IN_MS,)),
        columns.words("Faster", _faster)))


def _faster(p: Point) -> str:
    """``off in 4 of 4``, ``on in 3 of 4``; ``neither: 2 of 4 each`` for a tie."""
    better, n = p.won
    return f"neither: {n} of {p.pairs} each" if better is Better.MIXED else (
        f"{better.value} in {n} of {p.pairs}")


def stamp(docs: list[dict[str, Any]]) -> str:
    """One stamp for the processes: device, torch, how many, the days, the commits."""
    prov, settings = docs[0]["provenance"], docs[0]["provenance"]["settings"]
    return stamps.several(docs, "recorded", [
        prov["device"], f"driver {prov.get('driver')}", f"torch {prov['torch']}",
        f"{settings.get('dtype')}, {settings.get('rounds')} rounds",
    ], render.count(len(docs), "process", "processes"))
