"""The scale page's findings: their numbers and verdicts, from a real CPU run and from rows
reduced to what the findings read."""

from __future__ import annotations

import pytest

from snippets.core import results
from snippets.scale import findings
from snippets.scale.findings import AgainstOne, Scaling

from .conftest import MLP
from .test_tables import one_gpu_run


@pytest.mark.parametrize("eff, verdict, time_ratio", [
    (0.4, Scaling.SLOWER, 1.25),  # below 1/2: two GPUs take longer than one
    (0.75, Scaling.FASTER, 1 / 1.5),
    (None, Scaling.NO_REFERENCE, None),
])
def test_two_gpus_against_one(eff, verdict, time_ratio):
    a = AgainstOne.of({"scaling_efficiency": eff, "world_size": 2})
    assert a.verdict == verdict and a.time_ratio == pytest.approx(time_ratio)


def row(model, strategy, variant, ms, *, status="ok", eff=None, graphs=1, **fields):
    """A row reduced to what the findings read."""
    return {"model": model, "strategy": strategy, "variant": variant, "nodes": 1,
            "nproc_per_node": 2, "world_size": 2, "bucket_cap_mb": None, "status": status,
            "step_ms": {"median": ms}, "scaling_efficiency": eff, "graph_count": graphs,
            "losses": [2.0, 1.0], "batch_norm": False, **fields}


def run(rows):
    return {"provenance": {"settings": {"bucket_caps": [None], "tolerance": 0.05}},
            "rows": rows}


def test_per_strategy_the_fastest_compiled_variant_and_fsdp2_against_ddp():
    found = findings.of(run([
        row("m", "single", "eager", 10.0, graphs=0),
        row("m", "ddp", "eager", 8.0, eff=0.625, graphs=0),
        row("m", "ddp", "compiled", 4.0, eff=0.5),
        row("m", "ddp", "per-block", 5.0),
        row("m", "fsdp2", "eager", 12.0, graphs=0),
        row("m", "fsdp2", "compiled", 1.0, status="mismatch", message="loss gap 0.2"),
        row("m", "fsdp2", "per-block", 6.0, graphs=0, nodes=2),  # not a main row
    ]))
    ddp, fsdp2 = found.strategies
    assert (ddp.strategy, ddp.fastest, ddp.speedup) == ("ddp", "compiled", 2.0)
    assert ddp.eager.verdict == Scaling.FASTER and ddp.eager.time_ratio == 0.8
    # a row that learned differently is no candidate, whatever its time
    assert (fsdp2.fastest, fsdp2.speedup, fsdp2.eager.verdict) == (None, None,
                                                                   Scaling.NO_REFERENCE)
    assert [(c.model, c.ratio) for c in found.fsdp_cost] == [("m", 1.5)]
    assert found.configurations == 7
    assert found.faults == ("m · fsdp2 · compiled",)
    assert found.learning.mismatched == ("m · fsdp2 · compiled",)
    # compile paid where a compiled step beat eager; FSDP2 has none that learned the same
    assert (found.compile_paid, found.compile_paid_count, found.compile_timed) == (
        ("m · ddp",), 1, 1)
    assert found.complete and not findings.of({**run([]), "complete": False}).complete


def test_a_compiled_variant_with_no_graph_ran_eagerly():
    rows = [row("m", "fsdp2", "eager", 40.0, graphs=0),
            row("m", "fsdp2", "per-block-inplace", 35.0, graphs=0),
            row("m", "fsdp2", "per-block", 30.0, graphs=2)]
    assert findings.uncompiled(rows) == ("m · per-block-inplace",)
    assert findings.uncompiled(rows[1:]) == ()  # no eager row to set it against


def test_the_findings_of_a_real_run(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    found = findings.of(doc)
    ddp, = found.strategies  # FSDP2 has no eager row in the main table: nothing to set against
    assert (ddp.model, ddp.strategy, ddp.fastest) == (MLP, "ddp", "compiled")
    rows = {(r["strategy"], r["variant"], r["nodes"]): r for r in doc["rows"]
            if r["model"] == MLP}
    eager, compiled = rows["ddp", "eager", 1], rows["ddp", "compiled", 1]
    assert ddp.speedup == pytest.approx(eager["step_ms"]["median"]
                                        / compiled["step_ms"]["median"])
    assert ddp.eager.time_ratio == pytest.approx(1 / (2 * eager["scaling_efficiency"]))
    assert found.fsdp_cost == () and found.uncompiled == ()
    assert found.configurations == len(doc["rows"]) and found.faults == ()
    assert found.learning == findings.Learning(steps=4, tolerance_pct=0.1, mismatched=(),
                                               batch_norm=())
    assert found.shown == {"table": 4, "time_split": 4, "buckets": 2, "blocks": 3,
                           "autograd": 0, "nodes": 2, "losses": 4}


def test_the_one_gpu_rows_the_table_shows():
    assert findings.one_gpu(one_gpu_run()).rows == 3
    assert findings.one_gpu({"rows": []}) == findings.OneGpu(0)
