"""snippets.dynamic: recompile counts per strategy (Dynamo only, no kernels), and its tables."""

from __future__ import annotations

import pytest
import torch

from snippets import dynamic
from snippets.core import results
from snippets.dynamic import findings, producer, recompiles, tables
from tests.markdown import table_rows

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


@pytest.fixture(scope="module")
def summaries():
    limit = dynamic.recompile_limit()
    with torch.no_grad():
        return {s: dynamic.summarize(s, dynamic.run_schedule(s, backend="eager"), limit)
                for s in dynamic.STRATEGIES}


def test_every_strategy_computes_the_eager_result(summaries):
    for s in summaries.values():
        assert s["all_correct"] and not s["errors"], s["strategy"]


def test_default_goes_dynamic_after_the_first_change(summaries):
    # static at 4×32; the batch change recompiles with batch dynamic, the length change with
    # length dynamic; batch 1 is specialized (0/1 specialization) and compiles once more.
    assert summaries["default"]["compiled_at"] == [[4, 32], [8, 32], [8, 48], [1, 40]]


def test_dynamic_true_and_marking_compile_once_plus_size_one(summaries):
    # One dynamic compile at the first call; batch 1 may be specialized once more.
    for s in ("dynamic=True", "mark_dynamic", "maybe_mark_dynamic"):
        assert summaries[s]["compiled_at"] in ([[4, 32]], [[4, 32], [1, 40]]), s


def test_an_unbacked_batch_compiles_once_for_the_whole_schedule(summaries):
    if "mark_unbacked" not in summaries:
        pytest.skip("this torch has no mark_unbacked")
    # batch 1 included: an unbacked size is not specialized at 0 or 1
    assert summaries["mark_unbacked"]["compiled_at"] == [[4, 32]]


def test_padded_output_is_cut_back_to_the_callers_shape():
    model = dynamic.TinyEncoder().eval()
    x = torch.randn(3, 40, 64)
    with torch.no_grad():
        out = dynamic.run_padded(model, x)
        torch.testing.assert_close(out, model(x), atol=1e-5, rtol=1e-4)


def test_dynamic_false_stops_at_the_recompile_limit(summaries):
    limit = dynamic.recompile_limit()
    distinct = len(set(dynamic.SCHEDULE))
    row = summaries["dynamic=False"]
    assert row["compiles"] == limit and row["eager_after_limit"] == distinct - limit


def test_buckets_compile_once_per_bucket(summaries):
    used = {(dynamic.bucket(b, dynamic.BUCKETS["batch"]), dynamic.bucket(s, dynamic.BUCKETS["seq"]))
            for b, s in dynamic.SCHEDULE}
    row = summaries["pad to buckets"]
    assert row["compiles"] == len(used)
    assert {tuple(shape) for shape in row["compiled_at"]} == used


@pytest.mark.parametrize("fullgraph", [False, True])
def test_past_the_limit_a_new_shape_runs_eager_unless_fullgraph_where_it_raises(fullgraph):
    """What the page's At the recompile limit says: the compiled shapes keep their code and a new
    shape runs eager, except under fullgraph=True (torch/_dynamo/convert_frame.py, _compile)."""
    def f(x):
        return x * 2

    name = dynamic.recompile_limit_name()
    with torch._dynamo.config.patch({name: 1}):
        compiled = torch.compile(f, backend="eager", dynamic=False, fullgraph=fullgraph)
        compiled(torch.ones(2))
        if fullgraph:
            with pytest.raises(torch._dynamo.exc.FailOnRecompileLimitHit):
                compiled(torch.ones(3))
        else:
            assert torch.equal(compiled(torch.ones(3)), torch.full((3,), 2.0))  # eager, no error
        assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 2.0))  # still compiled


def test_recompile_limit_name_exists():
    assert isinstance(getattr(torch._dynamo.config, dynamic.recompile_limit_name()), int)


def test_recompile_log_shows_the_failed_guard():
    log = recompiles.recompile_log()
    assert "Recompiling function forward in snippets/dynamic/__init__.py:" in log
    assert "size mismatch at index 0" in log  # the guard that failed: the batch changed
    assert str(results.ROOT) not in log


@pytest.mark.skipif(not recompiles.has_stance(), reason="set_stance arrived in torch 2.6")
def test_fail_on_recompile_guards_unseen_shapes():
    (serving, seen), (unseen, error) = recompiles.stance_outcomes()
    assert (serving, seen, unseen) == ("serving shapes", None, "length 100")
    assert error is not None and error.startswith("RuntimeError")


def test_markdown_tables_render_a_document():
    lat = {"median": 2.0, "iqr": 0.1, "samples": [2.0]}
    doc = {"rows": [{"strategy": "default", "compiles": 2, "compiled_at": [[4, 32], [8, 32]],
                     "stall_total_ms": 3000.0, "stall_max_ms": 2000.0, "eager_after_limit": 0,
                     "errors": []}],
           "steady": [{"variant": "eager", "batch": 8, "seq": 64, "latency_ms": lat,
                       "speedup": 1.0}]}
    assert table_rows(tables.stalls(doc)) == [["default", "2", "3.00", "2.00", "0", "4×32 8×32"]]
    doc["rows"][0]["errors"] = ["ConstraintViolationError: batch | specialized"]
    assert table_rows(tables.stalls(doc).split("\n\n")[1]) == [
        ["`default`", "ConstraintViolationError: batch \\| specialized"]]
    assert table_rows(tables.steady(doc)) == [["eager", "8×64", "2", "0.1", "1.00x"]]


def test_counts_doc_is_a_valid_document_with_a_row_per_strategy():
    doc = producer.counts_doc()
    assert results.validate(doc, kind="dynamic-counts") and doc["complete"]
    assert [r["strategy"] for r in doc["rows"]] == list(dynamic.STRATEGIES)
    assert tables.counts(doc).endswith(f" = {dynamic.recompile_limit()}`")


def _inductor_run(device: str) -> dict:
    cfg = producer.DynamicConfig(device=device, strategies=("dynamic=True", "pad to buckets"),
                                rounds=2, sample_ms=1.0)
    doc = producer.produce(cfg)
    assert results.validate(doc, kind="dynamic-shapes") and doc["complete"]
    for row in doc["rows"]:
        assert row["all_correct"] and not row["errors"], row["strategy"]
        assert row["stall_total_ms"] > 0 and row["compiles"] == len(row["compiled_at"])
    assert [r["variant"] for r in doc["steady"]] == ["eager", "dynamic=True", "dynamic=False"]
    return doc


@pytest.mark.slow
def test_stalls_with_inductor_on_the_cpu():
    _inductor_run("cpu")


@pytest.mark.gpu
def test_stalls_with_inductor_on_the_gpu():
    assert _inductor_run("cuda")["provenance"]["device_type"] == "cuda"


def test_steady_findings_compare_each_kernel_and_say_when_the_spread_decides():
    def row(variant, median, iqr, speedup):
        return {"variant": variant, "batch": 8, "seq": 64, "speedup": speedup,
                "latency_ms": {"median": median, "iqr": iqr}}

    doc = {"steady": [row("eager", 1.0, 0.1, 1.0), row("dynamic=True", 1.05, 0.02, 0.95),
                      row("dynamic=False", 0.98, 0.05, 1.02)]}
    found = findings.steady(doc)
    assert (found.batch, found.seq, found.eager_ms) == (8, 64, 1.0)
    assert (found.specialized_speedup, found.dynamic_speedup) == (1.02, 0.95)
    assert found.dynamic_over_specialized == pytest.approx(1.05 / 0.98)
    assert found.difference_ms == pytest.approx(0.07) and found.widest_iqr_ms == 0.1
    assert found.ranked is findings.Ranked.WITHIN_SPREAD
    doc["steady"][1]["latency_ms"]["median"] = 1.5  # now apart by more than any IQR
    assert findings.steady(doc).ranked is findings.Ranked.RANKED
    assert findings.steady({"steady": []}) is None


def test_sizes_name_the_encoder_and_the_timed_shape():
    small, large = producer.DynamicConfig(), producer.DynamicConfig(size="large")
    assert (small.dims.width, small.dims.heads, small.dims.steady) == (64, 4, (8, 64))
    assert (large.dims.width, large.dims.heads, large.dims.steady) == (1024, 16, (8, 512))
    settings = producer.DynamicConfig(device="cpu", size="large").resolve().settings()
    assert (settings["size"], settings["width"], settings["heads"], settings["steady_shape"]) == (
        "large", 1024, 16, [8, 512])
    # The large size's reason: 24 x width^2 FLOPs a token, 4096 tokens, about 103 GFLOP a call.
    b, s = large.dims.steady
    assert round(24 * large.dims.width ** 2 * b * s / 1e9) == 103


def test_an_unknown_size_is_refused():
    from snippets.core import config

    with pytest.raises(config.ConfigError, match="invalid choice: 'huge'"):
        producer.DynamicConfig(size="huge")


def test_a_large_run_counts_compiles_and_times_its_own_shape(monkeypatch):
    # The large size shrunk to stay quick: what is checked is that the size reaches the model,
    # the schedule's inputs and the steady shape, and that the counts and results still hold.
    monkeypatch.setitem(dynamic.SIZES, "large", dynamic.Size(32, 2, (2, 24)))
    cfg = producer.DynamicConfig(device="cpu", backend="eager", size="large",
                                strategies=("default", "dynamic=True"), rounds=2, sample_ms=1.0)
    doc = producer.produce(cfg)
    assert results.validate(doc, kind="dynamic-shapes") and doc["complete"]
    assert [r["strategy"] for r in doc["rows"]] == ["default", "dynamic=True"]
    for row in doc["rows"]:
        assert row["all_correct"] and not row["errors"], row["strategy"]
        assert 0 < row["compiles"] == len(row["compiled_at"])
    # The schedule's calls got inputs of the size's width: each one ran, at its own shape.
    assert [c["ran_as"] for c in doc["rows"][0]["calls"]] == [list(s) for s in dynamic.SCHEDULE]
    assert {(r["batch"], r["seq"]) for r in doc["steady"]} == {(2, 24)}
    assert doc["provenance"]["settings"]["width"] == 32
