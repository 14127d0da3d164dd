"""The transformer's fused fast path: its graph either way, the flag restored, the fix shown on the
page run for real."""

from __future__ import annotations

import pytest
import torch

from snippets import explain
from snippets.core import measure, models
from snippets.explain import fastpath, tables


@pytest.fixture(autouse=True)
def _fresh_dynamo_and_fastpath():
    was = torch.backends.mha.get_fastpath_enabled()
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
    torch.backends.mha.set_fastpath_enabled(was)  # the shown fix switches it off for good


def test_benchmark_transformer_is_one_graph_of_fused_layers():
    doc = fastpath.graph_doc()
    on, off = doc["rows"]
    assert (on["graph_count"], on["graph_break_count"]) == (1, 0)
    assert on["ops"] == {"_transformer_encoder_layer_fwd": 6}
    assert "_transformer_encoder_layer_fwd" not in off["ops"] and off["graph_break_count"] == 0


def test_fastpath_flag_is_restored():
    was = torch.backends.mha.get_fastpath_enabled()
    with fastpath.fastpath(not was):
        assert torch.backends.mha.get_fastpath_enabled() is (not was)
    assert torch.backends.mha.get_fastpath_enabled() is was


def test_the_shown_fix_traces_the_layers_parts_and_computes_the_same():
    torch.manual_seed(0)
    model, x = models.transformer(2)
    model = model.eval()
    with torch.no_grad():
        ref = model(x)  # eager, fast path on
        compiled = fastpath.compile_without_fastpath(model)
        out = compiled(x)
        exp = explain.explain_quietly(model, x)  # traced as the fix left the flag
    assert torch.backends.mha.get_fastpath_enabled() is False
    ops = {op for graph in exp.ops_per_graph for op in graph}
    assert "_transformer_encoder_layer_fwd" not in ops and "linear" in ops
    assert (exp.graph_count, exp.graph_break_count) == (1, 0)
    assert measure.relative_error(out, ref) < 1e-4


def test_findings_one_line_per_batch_from_a_real_cpu_run():
    doc = fastpath.produce(fastpath.FastpathConfig(device="cpu", rounds=2, sample_ms=1.0))
    assert doc["complete"] and [r["variant"] for r in doc["rows"]] == list(fastpath.VARIANTS)
    assert all(r["rel_err"] < 1e-4 for r in doc["rows"])
    lines = tables.fastpath_findings(doc).splitlines()
    assert len(lines) == 1 and lines[0].startswith("- Batch 1: ")
    assert tables.fastpath_latency(doc).count("\n") == 1 + len(doc["rows"])
    spread = tables.fastpath_spread(doc).splitlines()
    assert len(spread) == 1 and spread[0].startswith("- Batch 1: the 4 medians lie within ")
    assert "over 2 rounds" in spread[0]


def test_spread_says_when_the_rows_cannot_be_told_apart():
    def row(variant, median, iqr):
        return {"batch_size": 1, "variant": variant, "latency_ms": {"median": median, "iqr": iqr}}

    doc = {"provenance": {"settings": {"rounds": 5}},
           "rows": [row("eager, fast path", 50.0, 8.0), row("compiled, fast path", 55.0, 2.0)]}
    assert tables.fastpath_spread(doc) == (
        "- Batch 1: the 2 medians lie within 5 ms of each other, less than the widest "
        "interquartile range over 5 rounds (8 ms, *eager, fast path*): the run cannot tell "
        "these variants apart.")
    doc["rows"][1]["latency_ms"]["median"] = 60.0
    assert tables.fastpath_spread(doc).endswith(
        "10 ms of each other, more than the widest interquartile range over 5 rounds (8 ms, "
        "*eager, fast path*).")


@pytest.mark.gpu
def test_the_four_variants_on_the_gpu():
    doc = fastpath.produce(fastpath.FastpathConfig(device="cuda", rounds=2, sample_ms=1.0))
    assert doc["complete"] and doc["provenance"]["settings"]["dtype"] == "bf16"
    assert [(r["batch_size"], r["variant"]) for r in doc["rows"]] == [
        (bs, v) for bs in (1, 32) for v in fastpath.VARIANTS]
    assert all(r["rel_err"] < 5e-2 for r in doc["rows"])  # bf16 rounding, as the benchmark
    assert len(tables.fastpath_findings(doc).splitlines()) == 2
