"""The transformer's fused fast path: its graph either way, the flag restored, the fix shown on the
page run for real."""

from __future__ import annotations

import pytest
import torch

from snippets import explain
from snippets.core import measure, models
from snippets.core.findings import Verdict
from snippets.explain import fastpath, findings, tables
from tests.markdown import table_rows


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


def test_findings_one_per_batch_from_a_real_cpu_run():
    doc = fastpath.produce(fastpath.FastpathConfig(device="cpu", rounds=2, sample_ms=1.0))
    assert doc["complete"] and [r["variant"] for r in doc["rows"]] == list(fastpath.VARIANTS)
    assert all(r["rel_err"] < 1e-4 for r in doc["rows"])
    got = findings.fastpath(doc)
    ms = {r["variant"]: r["latency_ms"]["median"] for r in doc["rows"]}
    (b,) = got.batches
    assert b.batch == 1 and b.fastest == min(ms, key=ms.get)
    assert b.compiled_of_eager == ms[findings.COMPILED] / ms[findings.EAGER]
    assert b.off_of_on == ms[findings.COMPILED_OFF] / ms[findings.COMPILED]
    assert got.off_verdict is b.off_verdict
    assert tables.fastpath_latency(doc).count("\n") == 1 + len(doc["rows"])
    (s,) = got.spreads
    assert (s.batch, s.variants, s.rounds) == (1, 4, 2)
    assert s.span_ms == max(ms.values()) - min(ms.values())


def _row(variant, median, iqr, batch=1):
    return {"batch_size": batch, "variant": variant,
            "latency_ms": {"median": median, "iqr": iqr, "samples": [median] * 3}}


def test_spread_says_when_the_rows_cannot_be_told_apart():
    doc = {"provenance": {"settings": {"rounds": 5}},
           "rows": [_row(findings.EAGER, 50.0, 8.0), _row(findings.COMPILED, 55.0, 2.0)]}
    got = findings.fastpath(doc)
    assert got.batches == ()  # the ratios need all four variants, the spread any
    (s,) = got.spreads
    assert (s.span_ms, s.widest_iqr_ms, s.widest, s.rounds) == (5.0, 8.0, findings.EAGER, 5)
    assert s.ranked is findings.Ranked.WITHIN_SPREAD
    doc["rows"][1]["latency_ms"]["median"] = 60.0
    (s,) = findings.fastpath(doc).spreads
    assert s.span_ms == 10.0 and s.ranked is findings.Ranked.APART
    doc["provenance"] = {}
    assert findings.fastpath(doc).spreads[0].rounds is None
    assert table_rows(tables.fastpath_spread(doc)) == [
        ["1", "2", "10", "8", f"*{findings.EAGER}*", "apart"]]


def test_fastpath_verdicts_per_batch():
    rows = [_row(v, ms, 0.1, batch) for batch, times in ((1, (1.0, 1.5, 0.8, 1.0)),
                                                         (32, (1.0, 1.5, 0.9, 0.6)))
            for v, ms in zip(fastpath.VARIANTS, times, strict=True)]
    got = findings.fastpath({"provenance": {}, "rows": rows})
    one, many = got.batches
    assert (one.fastest, one.off_verdict) == (findings.COMPILED, Verdict.SLOWER)
    assert (one.compiled_of_eager, one.compiled_off_of_eager, one.off_of_on) == pytest.approx(
        (0.8, 1.0, 1.25))
    assert (many.fastest, many.off_verdict) == (findings.COMPILED_OFF, Verdict.PAYS)
    assert got.off_verdict is None  # the batches disagree
    assert table_rows(tables.fastpath_ratios({"provenance": {}, "rows": rows})) == [
        ["1", "0.80", "1.00", "1.25", f"*{findings.COMPILED}*"],
        ["32", "0.90", "0.60", "0.67", f"*{findings.COMPILED_OFF}*"]]


@pytest.mark.gpu
def test_the_four_variants_on_the_gpu():
    doc = fastpath.produce(fastpath.FastpathConfig(device="cuda", rounds=2, sample_ms=1.0))
    assert doc["complete"] and doc["provenance"]["settings"]["dtype"] == "bf16"
    assert [(r["batch_size"], r["variant"]) for r in doc["rows"]] == [
        (bs, v) for bs in (1, 32) for v in fastpath.VARIANTS]
    assert all(r["rel_err"] < 5e-2 for r in doc["rows"])  # bf16 rounding, as the benchmark
    assert [b.batch for b in findings.fastpath(doc).batches] == [1, 32]
