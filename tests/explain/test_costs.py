"""What a break costs: every example timed eager and compiled, on a real compile. Slow on the CPU
(every example compiles with Inductor), so marked; run on the GPU with -m gpu."""

from __future__ import annotations

import pytest
import torch

from snippets.core import config, results
from snippets.explain import breaks, costs, findings, tables


def _check(doc: dict, may_fail: str | None = None) -> None:
    """Every example has its row; each is timed and right, or (``may_fail``, a fault's words)
    its compiled side failed as its own row."""
    assert results.validate(doc, kind="graph-breaks") and doc["complete"]
    assert [(r["cause"], r["variant"]) for r in doc["rows"]] == [
        (c.title, v.name) for c in breaks.CAUSES for v in (c.broken, *c.fixes)]
    for row in doc["rows"]:
        if may_fail and row["status"] != "ok":
            assert may_fail in row["message"] and row["compiled_ms"] is None
            continue
        assert row["rel_err"] < 1e-4, row["variant"]
        assert len(row["eager_ms"]["samples"]) == len(row["compiled_ms"]["samples"]) == 2
    assert tables.costs(doc).count("\n") == 1 + len(doc["rows"])


@pytest.mark.slow
def test_every_example_costed_on_the_cpu():
    _check(costs.produce(costs.CostConfig(device="cpu", rounds=2, sample_ms=1.0)))


@pytest.mark.gpu
def test_every_example_costed_on_the_gpu():
    before = torch.get_float32_matmul_precision()
    doc = costs.produce(costs.CostConfig(device="cuda", rounds=2, sample_ms=1.0))
    _check(doc)
    assert doc["provenance"]["settings"]["tf32"] is True
    assert torch.get_float32_matmul_precision() == before  # restored after the run


def test_sizes_set_the_rows_a_call_and_are_recorded():
    small, large = costs.CostConfig(device="cpu"), costs.CostConfig(device="cpu", size="large")
    assert (small.size, small.batch, large.batch) == ("small", 64, 16384)
    settings = large.resolve().settings()
    assert (settings["size"], settings["batch"], settings["width"]) == ("large", 16384, 256)
    # The large size's hidden activation, rows x 4 x WIDTH: no more values than torch.quantile
    # takes in fp32 before torch 2.14, which the NumPy examples' compiled percentile calls.
    assert large.batch * 4 * breaks.WIDTH == 2 ** 24


def test_the_mode_is_recorded_and_reduce_overhead_needs_cuda():
    # The tiny work measured under CUDA graphs is recorded as graph-breaks-reduce-overhead, the
    # page tells it from the default mode's file by settings.mode.
    assert costs.CostConfig(device="cpu").resolve().settings()["mode"] == "default"
    assert costs.CostConfig(device="cuda", mode="reduce-overhead").resolve().settings()[
        "mode"] == "reduce-overhead"
    with pytest.raises(config.ConfigError, match="needs a CUDA device"):
        costs.CostConfig(device="cpu", mode="reduce-overhead")


@pytest.mark.gpu
def test_every_example_costed_on_the_gpu_under_cuda_graphs():
    # The NumPy fix copies to the host inside its custom op, which a CUDA graph cannot capture.
    _check(costs.produce(costs.CostConfig(device="cuda", mode="reduce-overhead", rounds=2,
                                          sample_ms=1.0)), may_fail="CUDA graph capture")


def test_a_variant_whose_compiled_side_fails_is_its_own_row(monkeypatch):
    cause, made = breaks.CAUSES[0], []

    def compile_or_fail(model, mode):
        made.append(model)
        if len(made) == 1:  # the broken version: its compiled side raises when called
            def fails(*args):
                raise RuntimeError("planted: cannot capture")
            return fails
        return torch.compile(model, backend="eager")  # Dynamo alone: quick on a CPU

    monkeypatch.setattr(costs, "_compile", compile_or_fail)
    cfg = costs.CostConfig(device="cpu", rounds=2, sample_ms=1.0).resolve()
    with torch.no_grad():
        rows = costs.measure_cause(cause, cfg)
    doc = {**results.new_document("graph-breaks", results.provenance(
        torch.device("cpu"), cfg.settings())), "rows": rows}
    results.validate(doc)
    first, *rest = rows
    assert (first["status"], first["compiled_ms"], first["speedup"]) == ("error", None, None)
    assert "planted" in first["message"] and first["eager_ms"]["median"] > 0
    assert all(r["status"] == "ok" and r["speedup"] > 0 for r in rest)
    found = findings.costs(doc)
    assert found.rows == len(rest) and found.failed == ((cause.title, first["variant"],
                                                          first["message"]),)
    assert tables.costs(doc).count("\n") == 1 + len(rows)


def test_an_unknown_size_is_refused():
    with pytest.raises(config.ConfigError, match="invalid choice: 'huge'"):
        costs.CostConfig(size="huge")


@pytest.mark.slow
def test_a_run_at_a_size_validates_and_counts_its_rows(monkeypatch):
    # The large size's rows, shrunk so that the whole run stays quick: the size's name, rows and
    # every variant's row are what is checked, not its speed.
    monkeypatch.setitem(costs.SIZES, "large", 8)
    doc = costs.produce(costs.CostConfig(device="cpu", size="large", rounds=2, sample_ms=1.0))
    _check(doc)
    assert (doc["provenance"]["settings"]["size"], doc["provenance"]["settings"]["batch"]) == (
        "large", 8)
