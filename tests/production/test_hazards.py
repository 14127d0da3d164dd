"""CUDA-graph hazards on a CUDA device: the overwritten output and its fixes, skipped graphs with
torch's own reason, the graph pool's memory. Marked gpu: skipped without CUDA."""

from __future__ import annotations

import pytest
import torch

from snippets.core import results
from snippets.production import hazards, tables

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def doc():
    return hazards.document("cuda")


def test_the_document_is_valid(doc):
    assert results.validate(doc, kind=hazards.KIND) and doc["complete"]
    assert hazards.Hazard.MEMORY.value in tables.hazards(doc)


def test_reading_an_output_after_the_next_replay_fails_and_clone_fixes_it(doc):
    rows = {r["variant"]: r for r in doc["rows"]
            if r["hazard"] == hazards.Hazard.OVERWRITTEN}
    assert rows["as written"]["outcome"] in ("error", "wrong values")
    assert rows[".clone()"]["outcome"] == "correct", rows[".clone()"]["message"]


def test_a_mutated_input_skips_the_graph_with_a_reason_and_every_case_answers_right(doc):
    got = {r["variant"]: r for r in doc["rows"] if r["hazard"] == hazards.Hazard.SKIPPED}
    assert got["input mutation"]["outcome"] == "skipped"
    assert "mutat" in got["input mutation"]["message"]
    # torch 2.11 records a graph around a CPU input copied to the GPU, and one per length with
    # dynamic=True; skipped or not, each must answer its own inputs.
    for case in hazards.SKIPS:
        assert got[case]["outcome"] in ("skipped", "not skipped"), got[case]
        assert got[case]["message"].endswith("outputs match eager")


def test_the_graph_pool_holds_memory(doc):
    held = {r["variant"]: r["held_mb"] for r in doc["rows"] if "held_mb" in r}
    assert held["reduce-overhead"] > 0
    torch.cuda.empty_cache()
