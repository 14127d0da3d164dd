"""The zoo's findings on made-up rows: family means and ranges, what passed, the cause each row
that did not pay is given, the small-work trend and the tutorial's claims."""

from __future__ import annotations

import math

import pytest

from snippets.bench.claims import Claim
from snippets.core.findings import Verdict
from snippets.zoo import findings, tables
from snippets.zoo.findings import Holds
from snippets.zoo.outliers import Cause


def _row(model, family, bs, mode, speedup=None, *, status="ok", eager_ms=1.0, flops=1e9,
         **fields):
    row = {"model": model, "family": family, "batch_size": bs, "mode": mode, "status": status,
           "message": fields.pop("message", ""), "speedup": speedup, "speedup_iqr": 0.02,
           "compile_s": None if mode == "eager" else 10.0, "graph_breaks": 0, "recompiles": 0,
           "cudagraph_skips": 0, "flops": flops,
           "latency_ms": {"median": eager_ms} if mode == "eager" else {"median": 0.5}}
    row.update(fields)
    return row


def _model(model, family, gains, *, eager_ms=(1.0, 4.0), **fields):
    """Rows of one model: ``gains`` maps (mode, batch) to a speedup."""
    rows = [_row(model, family, bs, "eager", eager_ms=ms) for bs, ms in zip((1, 32), eager_ms, strict=True)]
    rows += [_row(model, family, bs, mode, s, **fields) for (mode, bs), s in gains.items()]
    return rows


def _doc(rows, models=None):
    names = models or list(dict.fromkeys(r["model"] for r in rows))
    return {"rows": rows, "provenance": {"device": "GPU", "settings": {
        "models": names, "batch_sizes": [1, 32]}}}


GOOD = {("default", 1): 2.0, ("default", 32): 1.5, ("reduce-overhead", 1): 8.0,
        ("reduce-overhead", 32): 3.0}


def test_a_family_holds_the_geometric_mean_and_range_of_its_models():
    doc = _doc(_model("a", "encoder", GOOD) + _model("b", "encoder", {**GOOD, ("default", 1): 8.0}))
    z = findings.of(doc)
    cell = z.family("encoder").cell("default", 1)
    assert cell.geomean == pytest.approx(4.0)  # sqrt(2 * 8)
    assert (cell.span.low, cell.span.high, cell.lowest, cell.highest) == (2.0, 8.0, "a", "b")
    assert z.passed == z.family("encoder").passed == 2
    assert z.cell("reduce-overhead", 32).geomean == pytest.approx(3.0)
    assert z.compile_median == 10.0 and z.missing == ()
    assert (z.ro_1, z.default_32) == (z.cell("reduce-overhead", 1), z.cell("default", 32))


def test_a_model_with_a_failed_row_has_not_passed_and_its_row_is_an_outlier():
    rows = _model("a", "decoder", GOOD) + _model("b", "decoder", {("default", 1): 2.0})
    rows.append(_row("b", "decoder", 1, "reduce-overhead", status="oom",
                     message="CUDA out of memory"))
    z = findings.of(_doc(rows))
    assert z.passed == 1
    (failed,) = z.caused(Cause.FAILS)
    assert (failed.model, failed.mode, failed.verdict, failed.status) == (
        "b", "reduce-overhead", None, "oom")
    assert "out of memory" in tables.outliers(_doc(rows))


@pytest.mark.parametrize("fields, gains, cause", [
    ({"graph_breaks": 3}, {("default", 1): 0.8}, Cause.BREAKS),
    ({"recompiles": 2}, {("default", 1): 0.8}, Cause.RECOMPILES),
    ({"cudagraph_skips": 1}, {("reduce-overhead", 1): 0.9}, Cause.NO_CUDA_GRAPHS),
    ({}, {("default", 1): 0.99, ("reduce-overhead", 1): 9.0}, Cause.HOST_BOUND),
    ({}, {("default", 1): 0.9, ("reduce-overhead", 1): 0.95}, Cause.KERNELS),
])
def test_the_cause_of_a_row_that_did_not_pay_is_its_evidence(fields, gains, cause):
    z = findings.of(_doc(_model("m", "other", gains, **fields)))
    first = z.outliers[0]
    assert first.cause is cause
    assert z.slower_models == (1 if first.verdict is Verdict.SLOWER else 0)
    assert first.verdict in (Verdict.SLOWER, Verdict.WITHIN_NOISE)


def test_rows_that_pay_are_no_outliers():
    assert findings.of(_doc(_model("a", "encoder", GOOD))).outliers == ()


def test_the_trend_counts_models_whose_small_batch_gains_more():
    rows = (_model("a", "encoder", GOOD)
            + _model("b", "encoder", {**GOOD, ("default", 1): 1.2})
            + _model("c", "encoder", {**GOOD, ("default", 1): 1.1}))
    z = findings.of(_doc(rows))
    ro = z.trend("reduce-overhead")
    assert (ro.smaller_gains_more, ro.pairs) == (3, 3)
    assert ro.verdict is Holds.HOLDS
    assert z.trend("default").smaller_gains_more == 1
    assert z.trend("default").verdict is Holds.MIXED


def test_spearman_ranks():
    assert findings.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert findings.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert findings.spearman([1, 2], [1, 2]) is None


def test_the_tutorials_claims_are_judged_by_the_families_that_stand_for_its_models():
    rows = (_model("r", "convolutional", {("default", 1): 1.5, ("default", 32): 2.0})
            + _model("v", "vision transformer", {("default", 1): 1.0, ("default", 32): 1.3}))
    by = {(c.model, c.batch): c for c in findings.of(_doc(rows)).claims}
    assert by["resnet50", 1].verdict is Claim.HOLDS and by["resnet50", 1].within == 1
    assert by["resnet50", 32].verdict is Claim.HIGHER
    assert by["transformer", 1].verdict is Claim.LOWER
    assert by["transformer", 32].verdict is Claim.HOLDS
    assert by["transformer", 1].families == findings.CLAIM_FAMILIES["transformer"]


def test_models_the_run_asked_for_and_did_not_finish_are_missing():
    z = findings.of(_doc(_model("a", "encoder", GOOD), models=["a", "b"]))
    assert z.missing == (("b", 1), ("b", 32))


def test_families_come_in_the_catalogs_order():
    rows = _model("x", "other", GOOD) + _model("y", "convolutional", GOOD)
    assert [f.name for f in findings.of(_doc(rows)).families] == ["convolutional", "other"]
    assert [f.name for f in findings.of(_doc(rows)).ranked("default", 1)] == [
        "convolutional", "other"]  # equal means: a stable sort keeps the order
    assert math.isclose(findings.of(_doc(rows)).cell("default", 1).geomean, 2.0)


def test_the_tables_draw_a_recorded_run():
    rows = _model("a", "encoder", GOOD) + _model("b", "other", {("default", 1): 0.9})
    doc = _doc(rows)
    assert "**all**" in tables.families(doc)
    assert "a · 32" in tables.models(doc)
    assert "0.90x" in tables.outliers(doc)
    assert tables.claims(doc).count("\n") == 5  # a head, its rule, four claims


def test_the_plot_draws_each_mode_of_a_run(monkeypatch):
    from matplotlib.axes import Axes

    from snippets.zoo import plots
    from tests import drawn

    doc = _doc(_model("a", "encoder", GOOD) + _model("b", "other", GOOD, eager_ms=(2.0, 9.0)))
    panels, points = (drawn.calls(monkeypatch, Axes, m) for m in ("set_title", "scatter"))
    html = plots.speedup_vs_latency(doc)
    assert html.startswith('<figure class="plot">')
    # a panel per compiled mode, a point per model, batch size and mode
    assert [t for (t, *_), _ in panels] == list(findings.of(doc).modes)
    assert sum(len(x) for (x, _), _ in points) == sum(r["mode"] != "eager" for r in doc["rows"])


def test_the_page_s_figures_are_the_zoo_s_cells_ranks_and_causes():
    rows = (_model("a", "convolutional", {**GOOD, ("default", 32): 0.9,
                                          ("reduce-overhead", 32): 0.95})
            + _model("b", "encoder", {**GOOD, ("reduce-overhead", 1): 2.0})
            + _model("h", "other", {("default", 1): 0.99, ("reduce-overhead", 1): 9.0}))
    z = findings.of(_doc(rows))
    assert (z.ro_32, z.default_1) == (z.cell("reduce-overhead", 32), z.cell("default", 1))
    assert z.least_default_32 == "convolutional" and z.families_ro_1.low == pytest.approx(2.0)
    assert z.families_ro_1.high == pytest.approx(9.0)  # the "other" family, h alone
    assert (z.trend_ro, z.trend_default) == (z.trend("reduce-overhead"), z.trend("default"))
    assert (z.host_bound_models, z.kernel_models, z.kernels_only) == (("h",), ("a",), "a")
    assert z.convolutional_lost and z.slower_models == 1
    assert not findings.of(_doc(_model("b", "encoder", GOOD))).convolutional_lost


def test_the_missing_table_has_a_row_per_model():
    doc = _doc(_model("a", "encoder", GOOD), models=["a", "b", "c"])
    assert tables.missing(doc).count("\n") == 3  # a head, its rule, two models
