"""The speed ladder's hand-captured rung read against its CUDA-graph rung, block by block."""

from __future__ import annotations

from snippets.bench.graphs import Verdict
from snippets.speed import graphs


def row(model, batch, mode, median, part=0, status="ok"):
    return {"model": model, "batch_size": batch, "mode": mode, "status": status, "part": part,
            "latency_ms": {"median": median}, "speedup": 4.0 / median}


def test_each_block_with_a_hand_rung_is_split_against_its_own_eager_row():
    doc = {"rows": [
        # the first command's climb: no hand rung, nothing to split
        row("resnet50", 1, "eager", 4.0), row("resnet50", 1, "compile", 2.0),
        row("resnet50", 1, graphs.GRAPHS, 0.4),
        # a later command's block: eager, the graphs rung and the hand rung in the same rounds
        row("resnet50", 1, "eager", 4.0, part=1), row("resnet50", 1, graphs.GRAPHS, 0.5, part=1),
        row("resnet50", 1, graphs.HAND, 1.0, part=1),
        row("transformer", 1, "eager", 4.0, part=1), row("transformer", 1, graphs.GRAPHS, 0.8,
                                                         part=1),
        row("transformer", 1, graphs.HAND, 0.84, part=1),
    ]}
    found = graphs.of(doc)
    assert [(s.model, s.batch) for s in found.splits] == [("resnet50", 1), ("transformer", 1)]
    r, t = found.splits
    assert r.on_top == 2.0 and r.verdict == Verdict.INDUCTOR and r.backend is None
    assert t.verdict == Verdict.GRAPH and round(t.on_top, 2) == 1.05
    assert (found.enough_on, found.pays_on) == (("transformer (batch 1)",), ("resnet50 (batch 1)",))
    assert "cudagraphs backend" not in graphs.table(doc)
