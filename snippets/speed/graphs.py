"""The speed ladder's hand-captured rung against its CUDA-graph rung, as data and one table.

``python -m snippets.speed --ladder --rungs compile,channels-last,cuda-graphs,eager-graphed``
climbs to ``+ CUDA graphs`` (Inductor's kernels in one graph) and captures eager beside it in
the same rounds and the same layout (``eager, graphed by hand``). Their ratio is what Inductor
adds on top of the graph, read as the benchmark's graph variants are (``bench.graphs``). Pure:
nothing here measures or composes text.
"""

from __future__ import annotations

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


def of(doc: dict[str, Any]) -> graphs.Graphs:
    return graphs.Graphs(tuple(splits(doc)))


def table(doc: dict[str, Any]) -> str:
    """The blocks with a hand-captured rung, as the benchmark's graph table (no backend column)."""
    return graphs.table(doc, splits(doc), backend=False)
