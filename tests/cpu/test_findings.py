"""snippets.cpu.findings and tables, on made-up rows: each step of the recipe, compile against the
fastest runtime at its precision, first answers, and the rows that did not run."""

from __future__ import annotations

import torch

from snippets import cpu
from snippets.core import results
from snippets.core.findings import Verdict
from snippets.cpu import findings, tables
from snippets.cpu.findings import Gap
from tests.markdown import label, table_rows

CAP = {"capability": "AVX512", "avx512_bf16": True, "amx_tile": False, "amx_bf16": False}


def _row(model, batch, key, ms, *, precision=None, first_s=1.0, status="ok", message=""):
    v = cpu.BY_KEY[key]
    timed = {"median": ms, "iqr": 0.01 * ms, "samples": [0.99 * ms, ms, 1.01 * ms]}
    return cpu.new_row(model, batch, v, precision=precision or (
        "bf16" if v.precision == "bf16" else "fp32"), status=status, message=message,
        ready_s=0.5, first_s=first_s, latency_ms=timed if status == "ok" else None,
        rel_err=0.0 if key == "eager" else 1e-6)


def _doc(rows):
    prov = results.provenance(torch.device("cpu"), {}, commit="c")
    doc = results.new_document(cpu.KIND, {**prov, "cpu_capability": CAP})
    doc["rows"], doc["complete"] = rows, True
    return results.validate(doc, kind=cpu.KIND)


def _resnet(batch=1):
    return [_row("resnet50", batch, "eager", 100.0), _row("resnet50", batch, "compile", 100.0),
            _row("resnet50", batch, "compile-freezing", 60.0, first_s=30.0),
            _row("resnet50", batch, "onnxruntime", 55.0, first_s=8.0),
            _row("resnet50", batch, "openvino-f32", 50.0, first_s=6.0),
            _row("resnet50", batch, "eager-bf16", 90.0),
            _row("resnet50", batch, "compile-freezing-bf16", 30.0, first_s=40.0),
            _row("resnet50", batch, "openvino", 20.0, precision="bf16", first_s=7.0)]


def test_each_step_of_the_recipe_is_read_against_the_one_below_it():
    g = findings.of(_doc(_resnet())).group("resnet50", 1)
    steps = {(s.frm, s.to): s for s in g.steps}
    assert steps[("eager", "compile")].verdict is Verdict.WITHIN_NOISE
    assert steps[("compile", "compile-freezing")].ratio == 100.0 / 60.0
    assert steps[("compile-freezing", "compile-freezing-bf16")].verdict is Verdict.PAYS
    assert g.get("compile-freezing-bf16").speedup == 100.0 / 30.0
    f = findings.of(_doc(_resnet()))
    assert f.paid("compile", "compile-freezing", 1) == ("resnet50",)
    assert f.paid("eager", "compile", 1, pays=False) == ("resnet50",)
    assert (f.batch, f.compile_x, f.bf16_step) == (1, findings.Span(1.0, 1.0),
                                                   findings.Span(2.0, 2.0))
    assert (f.freezing_paid, f.freezing_unpaid, f.bf16_paid, f.bf16_unpaid) == (
        ("resnet50",), (), ("resnet50",), ())


def test_the_bf16_step_names_a_larger_batch_where_it_did_not_pay():
    batch_8 = [r if r["variant"] != "compile-freezing-bf16" else
               _row("resnet50", 8, "compile-freezing-bf16", 70.0) for r in _resnet(8)]
    f = findings.of(_doc(_resnet() + batch_8))
    assert (f.batch, f.bf16_paid, f.bf16_unpaid) == (1, ("resnet50",), ())
    assert f.bf16_unpaid_later == ("resnet50 · 8",)


def test_freezing_names_a_larger_batch_where_it_did_not_pay():
    batch_8 = [r if r["variant"] != "compile-freezing" else
               _row("resnet50", 8, "compile-freezing", 100.0, first_s=30.0) for r in _resnet(8)]
    f = findings.of(_doc(_resnet() + batch_8))
    assert (f.freezing_paid, f.freezing_unpaid) == (("resnet50",), ())
    assert f.freezing_unpaid_later == ("resnet50 · 8",)


def test_compile_stands_against_the_fastest_runtime_at_its_own_precision():
    g = findings.of(_doc(_resnet())).group("resnet50", 1)
    fp32, bf16 = g.standing("fp32"), g.standing("bf16")
    assert (fp32.compiled, fp32.runtime, fp32.ratio, fp32.gap) == (
        "compile-freezing", "openvino-f32", 60.0 / 50.0, Gap.LEVEL)
    assert (bf16.compiled, bf16.runtime, bf16.ratio, bf16.gap) == (
        "compile-freezing-bf16", "openvino", 1.5, Gap.BEHIND)
    f = findings.of(_doc(_resnet()))
    assert [(b.model, s.precision) for b, s in f.behind] == [("resnet50", "bf16")]
    assert f.gaps == {"ahead": 0, "level": 1, "behind": 1}


def test_openvino_that_chose_fp32_stands_with_the_fp32_runtimes():
    rows = [r if r["variant"] != "openvino" else _row("resnet50", 1, "openvino", 40.0,
                                                      precision="fp32") for r in _resnet()]
    g = findings.of(_doc(rows)).group("resnet50", 1)
    assert g.standing("fp32").runtime == "openvino" and g.standing("bf16") is None


def test_spans_over_models_and_first_answers():
    rows = _resnet() + [_row("bert_base", 1, "eager", 90.0),
                        _row("bert_base", 1, "compile-freezing-bf16", 30.0, first_s=50.0)]
    f = findings.of(_doc(rows))
    assert f.speedups("compile-freezing-bf16", 1) == findings.Span(3.0, 100 / 30)
    assert f.recipe_models == ("resnet50", "bert_base") and f.recipe_x == f.speedups(
        "compile-freezing-bf16", 1)
    assert f.first_s("compile-freezing-bf16") == findings.Span(40.0, 50.0)
    assert f.recipe == "compile-freezing-bf16" and f.bf16_hardware is True
    assert f.openvino_ran_at == ("bf16",) and f.bf16_errors.high == 1e-6
    assert f.recipe_first_s == findings.Span(40.0, 50.0) and f.openvino_first_s.low == 7.0


def test_a_row_that_did_not_run_is_kept_with_its_reason_and_a_table_shows_its_status():
    rows = _resnet()
    rows[3] = _row("resnet50", 1, "onnxruntime", 0.0, status="unsupported",
                   message=f"onnxruntime is not installed: {cpu.INSTALL}")
    doc = _doc(rows)
    g = findings.of(doc).group("resnet50", 1)
    assert "onnxruntime" not in g.timed and g.failed["onnxruntime"].startswith("unsupported")
    assert "unsupported" in tables.against(doc) and cpu.INSTALL in tables.table(doc)


def test_the_share_of_the_cores_others_took_is_read_from_each_row():
    rows = _resnet()
    rows[0] = {**rows[0], "wall_s": 10.0, "others_cpu_s": 5.0}
    doc = _doc(rows)
    doc["provenance"]["cpu_count"] = 2
    assert findings.of(doc).others == findings.Span(0.25, 0.25)
    assert "| 25 |" in tables.table(doc)


def test_without_eager_a_group_has_no_speedups_but_still_its_standings():
    g = findings.of(_doc([r for r in _resnet() if r["variant"] != "eager"])).group("resnet50", 1)
    assert g.eager_ms is None and g.get("compile").speedup is None
    assert g.standing("fp32").gap is Gap.LEVEL


def test_a_row_that_ran_beside_a_busy_neighbour_is_left_out_and_says_so():
    rows = [{**r, "wall_s": 10.0, "others_cpu_s": 0.2} for r in _resnet()]
    rows[6] = {**rows[6], "others_cpu_s": 6.0}  # compile-freezing-bf16: 30% of two cores
    doc = _doc(rows)
    doc["provenance"]["cpu_count"] = 2
    f = findings.of(doc)
    g = f.group("resnet50", 1)
    assert "compile-freezing-bf16" not in g.timed and f.crowded == 1 and f.rows == 8
    assert g.failed["compile-freezing-bf16"].startswith("crowded")
    assert g.standing("bf16") is None and "crowded" in tables.recipe(doc)


def test_profiles_are_drawn_only_where_a_runtime_ran_ahead_by_more_than_the_level():
    profile = {"calls": 1, "kernels_per_call": 2.0, "launches_per_call": 0.0,
               "span_us_per_call": 100.0, "busy_us_per_call": 90.0, "idle_fraction": 0.1,
               "top": [{"name": "Conv", "us_per_call": 90.0, "count_per_call": 2.0,
                        "share": 0.9}], "annotations": [], "device_type": "cpu"}
    rows = [{**r, "profile": profile} for r in _resnet()]
    out = tables.profiles(_doc(rows))
    # compile's recipe and the runtime ahead of it, of each group behind; level at fp32: none
    behind = findings.of(_doc(rows)).behind
    assert [s.precision for _, s in behind] == ["bf16"]
    assert [r[0] for r in table_rows(out)] == [label(g.model, g.batch, tables.SHORT[v])
                                               for g, s in behind for v in (s.compiled, s.runtime)]
    assert len(tables.behind(_doc(rows)).splitlines()) == 3  # its heads and one row
    encoder = [{**r, "model": "transformer"} for r in _resnet(8)]
    assert findings.of(_doc(rows + encoder)).encoder_bf16_top is None
    assert findings.of(_doc([{**r, "profile": profile} for r in encoder])).encoder_bf16_top == (
        "Conv")
