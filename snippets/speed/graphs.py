"""The ladder's hand-captured eager rung against its CUDA-graph rung: what Inductor adds on top
of the graph, read as the benchmark's graph variants are (``bench.graphs``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snippets.bench import graphs
from snippets.speed import findings

HAND, GRAPHS = "eager, graphed by hand", "+ CUDA graphs"


def splits(doc: dict[str, Any]) -> list[graphs.Split]:
    """A split per ladder block (one command's model and batch) with a hand-captured rung;
    every ratio is against that block's own eager row."""
    blocks: dict[tuple, list[dict[str, Any]]] = {}
    for p in findings.placed(doc):
        blocks.setdefault((p.row["model"], p.row["batch_size"], p.run), []).append(p.row)
    return [s for rows in blocks.values() if any(r["mode"] == HAND for r in rows)
            for s in graphs.split({"rows": rows}, (HAND, "", GRAPHS))]


@dataclass(frozen=True)
class Graphs:
    """The splits, and the ladders where the graph alone was enough and where Inductor paid."""

    splits: tuple[graphs.Split, ...]
    enough_on: tuple[str, ...]
    pays_on: tuple[str, ...]


def _on(found: graphs.Graphs, verdict: str) -> tuple[str, ...]:
    return tuple(f"{m} (batch {', '.join(str(s.batch) for s in ss)})"
                 for m, ss in found.by_model(verdict))


def of(doc: dict[str, Any]) -> Graphs:
    found = graphs.Graphs(tuple(splits(doc)))
    return Graphs(found.splits, _on(found, "graph"), _on(found, "inductor"))


def table(doc: dict[str, Any]) -> str:
    """The blocks with a hand-captured rung, as the benchmark's graph table (no backend column)."""
    return graphs.table(doc, splits(doc), backend=False)
