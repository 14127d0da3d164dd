"""A graph alone against a graph of Inductor's kernels, as data, and its one table.

``reduce-overhead`` does two things at once: Inductor's kernels, and one CUDA graph to launch them.
The eager model captured by hand (``eager-graphed``) and Dynamo's graph replayed by the
``cudagraphs`` backend do only the second; their ratio, in the same rounds, is Inductor's part.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.bench.stability import by_key
from snippets.core import columns, render
from snippets.core import rows as typed
from snippets.core.findings import Span

HAND, BACKEND, COMPILED = "eager-graphed", "cudagraphs-backend", "reduce-overhead"
# Within a tenth of the hand capture, reduce-overhead adds nothing a reader should pay a compile
# for: the runs' own spreads (half the IQR of the per-round ratios) reach a few hundredths.
ENOUGH = 1.10


class Verdict(str, enum.Enum):
    GRAPH = "graph"  # the hand capture is within ENOUGH of reduce-overhead: the graph is the gain
    INDUCTOR = "inductor"  # reduce-overhead beats the hand capture by more: compile pays on top
    NEITHER = "neither"  # neither beat eager by ENOUGH: no graph pays, nothing to split
    UNKNOWN = "unknown"  # one of the two did not run or did not compute eager's answer


@dataclass(frozen=True)
class Split:
    """One model and batch: each variant's speedup over eager, and ``on_top``, the hand
    capture's median over reduce-overhead's (how much faster Inductor's graph ran)."""

    model: str
    batch: int
    eager_ms: float
    hand: float | None
    backend: float | None
    compiled: float | None
    on_top: float | None
    verdict: Verdict


def _ms(row: dict[str, Any] | None) -> float | None:
    """A row's median, where it holds a valid time of a correct answer."""
    return typed.median(row) if typed.timed(row) else None


def split(doc: dict[str, Any], names: tuple[str, str, str] = (HAND, BACKEND, COMPILED),
          ) -> list[Split]:
    """A ``Split`` per model and batch whose eager row was timed; ``names``: the rows' variants
    for the hand capture, the backend and the compiled graph (the speed ladder's differ)."""
    by = by_key(doc)
    found = []
    for (model, batch, mode), eager in by.items():
        if mode != "eager" or _ms(eager) is None:
            continue
        rows = dict(zip((HAND, BACKEND, COMPILED),
                        (by.get((model, batch, m)) for m in names), strict=True))
        # a row that failed or answered wrong is not timed (rows.TIMED): no speedup to read
        speed = {m: r["speedup"] if _ms(r) is not None else None for m, r in rows.items()}
        hand, compiled = _ms(rows[HAND]), _ms(rows[COMPILED])
        on_top = hand / compiled if speed[HAND] and speed[COMPILED] else None
        verdict = (Verdict.UNKNOWN if on_top is None else
                   Verdict.NEITHER if max(speed[HAND], speed[COMPILED]) < ENOUGH else
                   Verdict.GRAPH if on_top < ENOUGH else Verdict.INDUCTOR)
        found.append(Split(model, batch, _ms(eager), speed[HAND], speed[BACKEND],
                           speed[COMPILED], on_top, verdict))
    return found


def _times(s: float | None) -> str:
    return render.num(s, ".2f") + "x" if s is not None else columns.MISSING


def table(doc: dict[str, Any], splits: list[Split] | None = None, backend: bool = True) -> str:
    """A row per model and batch: eager's time, each graph's speedup over it, and reduce-overhead
    over the hand capture. ``backend``: the speed ladder has none."""
    found = split(doc) if splits is None else splits
    return columns.markdown(found, (columns.Column("Model", lambda s: s.model, left=True),
                                         columns.Column("Batch", lambda s: s.batch, left=True)), (
        columns.ms("Eager", lambda s: s.eager_ms),
        columns.Column("Captured by hand", lambda s: s.hand, _times, notes=(columns.RATIO,)),
        *([columns.Column("cudagraphs backend", lambda s: s.backend, _times)] if backend else []),
        columns.Column("reduce-overhead", lambda s: s.compiled, _times),
        columns.Column("Inductor on top", lambda s: s.on_top, _times),
    ), joined=False)


@dataclass(frozen=True)
class Graphs:
    """A run's splits, and the models of each verdict in run order, for the page to name."""

    splits: tuple[Split, ...]
    complete: bool = True  # the file's flag: False where a run stopped before its last model
    margin_pct: float = (ENOUGH - 1) * 100  # how close to reduce-overhead is enough, in %

    def by_model(self, verdict: str) -> list[tuple[str, list[Split]]]:
        """The splits of one verdict (``"graph"``, ``"inductor"``) by model, in run order."""
        out: dict[str, list[Split]] = {}
        for s in self.splits:
            if s.verdict is Verdict(verdict):
                out.setdefault(s.model, []).append(s)
        return list(out.items())

    def at(self, model: str, batch: int) -> Split | None:
        return next((s for s in self.splits if (s.model, s.batch) == (model, batch)), None)

    @property
    def count(self) -> int:
        return len(self.splits)

    @property
    def graph_models(self) -> tuple[str, ...]:
        return tuple(m for m, _ in self.by_model(Verdict.GRAPH))

    @property
    def inductor_models(self) -> tuple[str, ...]:
        return tuple(m for m, _ in self.by_model(Verdict.INDUCTOR))

    @property
    def neither_models(self) -> tuple[str, ...]:
        return tuple(m for m, _ in self.by_model(Verdict.NEITHER))

    @property
    def graph_count(self) -> int:
        return sum(len(ss) for _, ss in self.by_model(Verdict.GRAPH))

    @property
    def inductor_count(self) -> int:
        return len(self.compile_pays)

    @property
    def compile_pays(self) -> list[Split]:
        return [s for _, ss in self.by_model(Verdict.INDUCTOR) for s in ss]

    @property
    def neither(self) -> list[Split]:
        return [s for s in self.splits if s.verdict is Verdict.NEITHER]

    @property
    def on_top(self) -> Span | None:
        """Where compile paid on top: reduce-overhead over the hand capture, lowest to highest."""
        pays = self.compile_pays
        return Span.of([s.on_top for s in pays]) if pays else None

    # the benchmark's two models at batch 1, which its page explains by name
    @property
    def transformer(self) -> Split | None:
        return self.at("transformer", 1)

    @property
    def resnet50(self) -> Split | None:
        return self.at("resnet50", 1)

    @property
    def backend_behind(self) -> bool:
        """Whether the cudagraphs backend ran slower than the hand capture wherever both ran."""
        both = [s for s in self.splits if s.hand and s.backend]
        return bool(both) and all(s.backend < s.hand for s in both)


def of(doc: dict[str, Any]) -> Graphs:
    return Graphs(tuple(split(doc)), complete=bool(doc.get("complete", True)))
