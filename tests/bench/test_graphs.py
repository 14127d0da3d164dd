"""The graph-or-compiler split: findings from hand-made rows (the numbers chosen so each verdict
is plain), and the page's capture recipe against the benchmark's capture on a GPU."""

from __future__ import annotations

import pytest
import torch

from snippets.bench import graphs


def _row(model, batch, mode, ms, speedup=None, status="ok"):
    return {"model": model, "batch_size": batch, "mode": mode, "status": status, "message": "",
            "latency_ms": {"median": ms, "iqr": 0.0, "samples": [ms]}, "speedup": speedup}


def _doc(*rows):
    return {"rows": list(rows)}


def test_each_model_and_batch_splits_into_the_graph_and_what_inductor_adds():
    doc = _doc(_row("cnn", 1, "eager", 4.0), _row("cnn", 1, "eager-graphed", 1.0, 4.0),
               _row("cnn", 1, "cudagraphs-backend", 1.25, 3.2),
               _row("cnn", 1, "reduce-overhead", 0.5, 8.0),
               _row("enc", 1, "eager", 1.0), _row("enc", 1, "eager-graphed", 0.2, 5.0),
               _row("enc", 1, "reduce-overhead", 0.21, 4.8))
    cnn, enc = graphs.split(doc)
    assert (cnn.hand, cnn.backend, cnn.compiled, cnn.on_top) == (4.0, 3.2, 8.0, 2.0)
    assert cnn.verdict is graphs.Verdict.INDUCTOR and enc.verdict is graphs.Verdict.GRAPH
    assert enc.backend is None and enc.on_top == pytest.approx(0.2 / 0.21)
    found = graphs.of(doc)
    assert found.compile_pays == [cnn] and found.neither == []
    assert found.at("cnn", 1) == cnn and found.at("cnn", 32) is None
    assert found.by_model("graph") == [("enc", [enc])] and found.by_model("inductor") == [
        ("cnn", [cnn])]
    assert found.backend_behind  # 3.2x under the hand capture's 4.0x; enc has no backend row
    assert (found.count, found.graph_count) == (2, 1)
    assert found.graph_models == ("enc",) and found.inductor_models == ("cnn",)
    assert (found.inductor_count, found.neither_models) == (1, ())
    assert found.margin_pct == pytest.approx((graphs.ENOUGH - 1) * 100)
    assert (found.on_top.low, found.on_top.high) == (2.0, 2.0)
    assert found.transformer is found.resnet50 is None  # the benchmark's models did not run


def test_the_benchmark_s_two_models_are_read_at_batch_1():
    doc = _doc(_row("resnet50", 1, "eager", 4.0), _row("resnet50", 1, "eager-graphed", 2.0, 2.0),
               _row("resnet50", 1, "reduce-overhead", 1.0, 4.0),
               _row("transformer", 8, "eager", 1.0))
    found = graphs.of(doc)
    assert found.resnet50.on_top == 2.0 and found.transformer is None  # batch 8 only


def test_where_neither_graph_beats_eager_the_split_says_neither():
    doc = _doc(_row("conv1d", 1, "eager", 1.0), _row("conv1d", 1, "eager-graphed", 0.96, 1.04),
               _row("conv1d", 1, "reduce-overhead", 0.96, 1.04))
    found = graphs.of(doc)
    assert found.splits[0].verdict is graphs.Verdict.NEITHER
    assert found.neither == list(found.splits) and found.graph_count == 0


def test_the_findings_carry_the_files_completeness():
    doc = _doc(_row("m", 1, "eager", 1.0))
    assert graphs.of(doc).complete and not graphs.of({**doc, "complete": False}).complete


def test_a_variant_that_failed_or_answered_wrong_leaves_the_split_unknown():
    doc = _doc(_row("m", 1, "eager", 2.0), _row("m", 1, "eager-graphed", 1.0, 2.0),
               _row("m", 1, "reduce-overhead", None, None, status="error"),
               _row("m", 8, "eager", 2.0), _row("m", 8, "eager-graphed", 1.0, 2.0),
               _row("m", 8, "reduce-overhead", 0.5, 4.0, status="mismatch"))
    doc["rows"][2]["latency_ms"] = None
    for s in graphs.split(doc):
        assert s.compiled is None and s.on_top is None and s.verdict is graphs.Verdict.UNKNOWN


def test_the_table_has_a_row_per_model_and_batch_and_a_dash_where_a_variant_is_missing():
    doc = _doc(_row("enc", 1, "eager", 1.0), _row("enc", 1, "eager-graphed", 0.2, 5.0),
               _row("enc", 1, "reduce-overhead", 0.25, 4.0))
    lines = graphs.table(doc).splitlines()
    cells = [c.strip() for c in lines[2].strip("|").split("|")]
    assert cells == ["enc", "1", "1.00", "5.00x", "–", "4.00x", "0.80x"]


@pytest.mark.gpu
def test_the_pages_capture_answers_as_eager_and_as_the_benchmarks_capture():
    from snippets.bench.capture import capture
    from snippets.core import cudagraph

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.GELU()).cuda().eval()
    x, other = torch.randn(8, 64, device="cuda"), torch.randn(8, 64, device="cuda")
    run = capture(model, x)
    with torch.no_grad():
        want = model(other)
        graphed = cudagraph.Graphed(model, x)
    got = run(other)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(graphed(other), want)
    again = run(x)  # a kept output is a copy: the next replay leaves it as it was
    torch.testing.assert_close(got, want)
    assert not torch.equal(again, got)
