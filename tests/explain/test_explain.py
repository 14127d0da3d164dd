"""snippets.explain: break counts of every broken example and its fixes, and the page's tables."""

from __future__ import annotations

import inspect

import pytest
import torch

from snippets import explain
from snippets.core import folders, models, results
from snippets.core.findings import Verdict
from snippets.explain import (
    breaks,
    corpus,
    counts,
    findings,
    logs,
    reasons,
    records,
    tables,
)
from snippets.explain.__main__ import load_target

CASES = [(cause.name, kind, variant) for cause in breaks.CAUSES
         for kind, variant in cause.variants()]


pytestmark = pytest.mark.usefixtures("fresh_dynamo")


@pytest.mark.parametrize(("cause", "kind", "variant"), CASES,
                         ids=[f"{c}-{k}-{v.name}" for c, k, v in CASES])
def test_break_counts(cause, kind, variant):
    exp = explain.explain_quietly(variant.module().eval(), *variant.args(breaks.example_input()))
    if kind == "broken" or variant.breaks_expected:
        assert exp.graph_break_count > 0
        assert exp.break_reasons and all(r.reason for r in exp.break_reasons)
        # the cause's line, or the vendor routine's in the block's module
        assert any(r.location.startswith(("snippets/explain/breaks.py:",
                                          "snippets/explain/block.py:"))
                   for r in exp.break_reasons)
    else:
        assert (exp.graph_count, exp.graph_break_count, exp.break_reasons) == (1, 0, ())


@pytest.mark.parametrize(("cause", "kind", "variant"), CASES,
                         ids=[f"{c}-{k}-{v.name}" for c, k, v in CASES])
def test_fix_computes_the_same(cause, kind, variant):
    torch.manual_seed(0)
    model = variant.module().eval()
    x = breaks.example_input()
    with torch.no_grad():
        ref = model(*variant.args(x))
        out = torch.compile(model, backend="aot_eager")(*variant.args(x))
    torch.testing.assert_close(out, ref)


def test_fixes_match_the_broken_version():
    x = breaks.example_input()
    for cause in breaks.CAUSES:
        torch.manual_seed(0)
        ref = cause.broken.module().eval()
        for fix in cause.fixes:
            model = fix.module().eval()
            model.load_state_dict(ref.state_dict())
            # kthvalue takes the nearest-rank percentile where NumPy interpolates between two
            # neighbouring values: the clip limit may move by one gap between sorted values.
            atol = 1e-3 if fix.module is breaks.TorchClip else 1e-5
            with torch.no_grad():
                torch.testing.assert_close(model(*fix.args(x)), ref(*cause.broken.args(x)),
                                           atol=atol, rtol=1e-4)


def test_print_at_the_end_counts_as_a_break():
    def shout(x):
        y = x * 2
        print("done")  # no graph follows: explain's own graph_break_count says 0
        return y

    exp = explain.explain_quietly(shout, torch.ones(2))
    assert (exp.graph_count, exp.graph_break_count) == (1, 1)
    assert "in shout" in exp.break_reasons[0].location


def test_causes_doc_schema_and_table():
    doc = counts.causes_doc()
    assert results.validate(doc, kind="explain-causes") and doc["complete"]
    assert [(r["cause"], r["kind"], r["variant"]) for r in doc["rows"]] == [
        (c.title, k, v.name) for c in breaks.CAUSES for k, v in c.variants()]
    table = tables.causes(doc)
    assert table.count("\n") == len(doc["rows"]) + 1
    # No address of a function object: it differs in every process, so every build would differ.
    assert " at 0x" not in table and "`<function calibrate_eagerly>`" in table
    # A repr outside code would read as an HTML tag and vanish from the page.
    assert "&lt;class 'list_iterator'&gt;" in table and "<class" not in table
    assert "snippets/explain/" not in table and "`breaks.py:" in table  # short locations


def test_a_reason_loses_the_address_python_prints_with_a_function():
    said = reasons.plain("Unsupported function\n  Explanation: Can't find numpy function "
                         "<function interp at 0x7f8714f294e0> in torch._numpy.\n")
    assert " at 0x" not in said.reason and said.reason.endswith("<function interp> in torch._numpy")


def test_models_doc_counts_one_graph_per_benchmark_model():
    doc = counts.models_doc()
    assert results.validate(doc, kind="explain-models")
    assert [(r["model"], r["graph_count"], r["graph_break_count"]) for r in doc["rows"]] == [
        ("resnet50", 1, 0), ("transformer", 1, 0)]
    assert all(r["ops"] > 0 for r in doc["rows"])


def _cells(table: str, row: int) -> list[str]:
    """The cells of one row of a Markdown table (0: the header)."""
    lines = [ln for ln in table.splitlines() if not set(ln) <= set("|:- ")]
    return [c.strip() for c in lines[row].strip("|").split("|")]


def test_latency_markdown_renders_a_results_row():
    lat = {"median": 1.5, "iqr": 0.1, "samples": [1.4, 1.5, 1.6]}
    doc = {"rows": [{"cause": "c", "variant": "v", "kind": "broken", "graph_count": 2,
                     "graph_break_count": 1, "eager_ms": lat, "compiled_ms": lat,
                     "speedup": 1.0}]}
    # Graphs, no break count: files made before e01dde6 hold graphs - 1 there.
    table = tables.costs(doc)
    assert _cells(table, 1) == ["c: broken, v", "2", "1.5", "1.5", "1.00x ±0", "within noise"]
    assert "Breaks" not in _cells(table, 0)


def _cost_row(cause, variant, kind, speedup, compiled):
    # eager's samples are the compiled ones times the speedup: every round's ratio is the speedup
    eager = [c * speedup for c in compiled]
    return {"cause": cause.title, "variant": variant.name, "kind": kind, "graph_count": 1,
            "graph_break_count": 0,
            "eager_ms": {"median": eager[1], "iqr": 0.0, "samples": eager},
            "compiled_ms": {"median": compiled[1], "iqr": 0.0, "samples": list(compiled)},
            "speedup": speedup}


def test_costs_findings_count_the_rows_slower_compiled_and_judge_each_fix():
    item, numpy = (next(c for c in breaks.CAUSES if c.name == n) for n in ("item", "numpy"))
    where, cond = item.fixes
    kth, array = numpy.fixes
    rows = [_cost_row(item, item.broken, "broken", 0.5, (2.0, 2.0, 2.0)),
            _cost_row(item, where, "fixed", 2.0, (1.0, 1.0, 1.0)),  # twice as fast as broken
            _cost_row(item, cond, "fixed", 0.9, (1.9, 2.0, 2.1)),  # its rounds straddle it
            _cost_row(numpy, numpy.broken, "broken", 0.25, (1.0, 1.0, 1.0)),
            _cost_row(numpy, kth, "fixed", 3.0, (0.5, 0.5, 0.5)),
            _cost_row(numpy, array, "fixed", 0.2, (1.5, 1.5, 1.5))]
    got = findings.costs({"rows": rows, "provenance": {"settings": {"size": "large",
                                                                    "batch": 16384}}})
    assert (got.batch, got.rows, got.slower, got.fixed_slower) == (16384, 6, 4, 2)
    # a median under 1 whose rounds straddle 1 is a tie, not slower
    tie = _cost_row(item, item.broken, "broken", 0.98, (1.0, 1.0, 1.0))
    tie["eager_ms"]["samples"] = [0.9, 0.98, 1.1]
    assert findings.costs({"rows": [tie]}).slower == 0
    # The variants that hand the tensor to NumPy, by the example's flag, not by their names.
    assert got.numpy == (numpy.broken.name, array.name)
    assert [(f.variant, f.broken, f.verdict) for f in got.fixes] == [
        (where.name, item.broken.name, Verdict.PAYS),
        (cond.name, item.broken.name, Verdict.WITHIN_NOISE),
        (kth.name, numpy.broken.name, Verdict.PAYS),
        (array.name, numpy.broken.name, Verdict.SLOWER)]
    assert got.fixes[0].speedup == 2.0 and got.fixes[3].speedup == pytest.approx(1 / 1.5)
    assert (got.fixes_pay, got.fixes_tie, got.fixes_slower) == (
        (where.name, kth.name), (cond.name,), (array.name,))


def _profiled(row, eager, compiled):
    """``row`` with a profile: (kernels, busy microseconds) a call, eager and compiled."""
    return {**row, "profile": {side: {"kernels_per_call": k, "busy_us_per_call": busy}
                               for side, (k, busy) in (("eager", eager), ("compiled", compiled))}}


def test_profiled_variants_say_whether_work_was_fused_away_and_who_set_the_pace():
    item, prints = (next(c for c in breaks.CAUSES if c.name == n) for n in ("item", "print"))
    (where, _), (flag,) = item.fixes, prints.fixes
    rows = [
        # Compiled 2 ms against 1,000 us of kernels: the device waited on the host.
        _profiled(_cost_row(prints, flag, "fixed", 0.5, (2.0, 2.0, 2.0)), (4, 1000), (4, 1050)),
        # Fewer kernels, half the busy time, and a call no longer than its kernels.
        _profiled(_cost_row(item, where, "fixed", 2.0, (0.5, 0.5, 0.5)), (10, 1000), (6, 480)),
        _cost_row(item, item.broken, "broken", 1.0, (1.0, 1.0, 1.0)),  # not profiled
        # The same work at 0.99x, its rounds straddling 1: a tie, not slower.
        _profiled({**_cost_row(item, item.broken, "broken", 0.99, (1.0, 1.0, 1.0)),
                   "eager_ms": {"median": 0.99, "iqr": 0.4, "samples": [0.8, 0.99, 1.2]}},
                  (4, 1000), (4, 1000)),
        {**_cost_row(item, item.broken, "broken", 1.0, (1.0, 1.0, 1.0)),
         "profile": {"eager": {"error": "RuntimeError: boom"}, "compiled": {}}}]
    got = findings.costs({"rows": rows})
    assert [p.variant for p in got.profiled] == [flag.name, where.name, item.broken.name]
    assert [(p.same_work, p.compiled_pace) for p in got.profiled] == [
        (True, findings.Pace.HOST), (False, findings.Pace.DEVICE), (True, findings.Pace.DEVICE)]
    assert (got.same_work, got.same_work_slower, got.host_paced) == (2, 1, 1)
    assert got.profiled_count == 3 and (got.same_work_pct, got.host_over_pct) == pytest.approx(
        (10.0, 10.0))
    assert got.flag.variant == flag.name and got.flag.compiled_us == 2000.0
    assert findings.costs({"rows": rows[1:]}).flag is None
    table = tables.costs_profile({"rows": rows})
    assert _cells(table, 1) == [flag.name, "4", "4", "1,000", "1,050", "2,000"]


def test_costs_findings_of_the_recorded_runs():
    for doc in (folders.newest(results.ROOT / "docs" / "results", name, d)
                for name in ("graph-breaks", "graph-breaks-large") for d in ("cuda", "cpu")):
        if doc is None:
            continue
        got = findings.costs(doc)
        assert got.rows == len(doc["rows"]) and 0 <= got.fixed_slower <= got.slower
        assert got.batch == doc["provenance"]["settings"]["batch"]
        assert len(got.fixes) == sum(r["kind"] == "fixed" for r in doc["rows"])
        assert set(got.numpy) == {
            v.name for c in breaks.CAUSES for v in (c.broken, *c.fixes) if v.numpy}


def test_fullgraph_turns_the_break_into_an_error():
    text = logs.fullgraph_text()
    assert "no error" not in text and "print" in text and str(results.ROOT) not in text
    assert 'File "snippets/explain/block.py"' in text  # the block's forward, which calls it


def test_fullgraph_text_drops_any_folder_before_the_package(monkeypatch):
    # As when the site is built from a test's temporary copy of the repository.
    monkeypatch.setattr(logs, "fullgraph_error", lambda: (
        'from user code:\n   File "/tmp/pytest-of-root/p-1/site0/snippets/explain/breaks.py", '
        'line 35, in forward'))
    text = logs.fullgraph_text()
    assert "/tmp/" not in text and 'File "snippets/explain/breaks.py", line 35' in text


def test_graph_break_log_names_the_line():
    log = logs.graph_break_log()
    record = records.parse(log)  # read as the explainer reads Dynamo's records
    assert record.file == "snippets/explain/breaks.py" and record.line > 0
    assert str(results.ROOT) not in log  # paths are repository-relative on the page




def test_load_target_reports_spec_errors():
    with pytest.raises(models.SpecError, match="must return"):
        load_target("snippets.explain.breaks:example_input")
    with pytest.raises(models.SpecError, match="has no callable"):
        load_target("snippets.explain.breaks:WIDTH")


def _explained(name):
    case = corpus.by_name()[name]
    return case, explain.explain_quietly(case.fn, *case.args())


def test_a_skipped_function_names_the_statement_and_the_loop():
    case, exp = _explained("break_in_loop")
    (r,) = exp.break_reasons
    lines, first = inspect.getsourcelines(case.fn)
    at = {key: first + next(i for i, ln in enumerate(lines) if key in ln)
          for key in ("graph_break()", "for i in")}
    assert r.location.endswith(f"corpus.py:{at['graph_break()']} in break_in_loop")
    assert (r.function, r.eager) == ("break_in_loop", explain.Eager.FUNCTION)
    assert r.blocker == reasons.Blocker(reasons.Block.FOR, at["for i in"])
    assert str(at["for i in"]) in r.skipped and r.function in r.skipped
    _, exp = _explained("break_in_try")
    assert exp.break_reasons[0].blocker.block is reasons.Block.TRY


def test_a_break_resumed_from_has_no_note():
    _, exp = _explained("two_breaks")
    assert all((r.eager, r.blocker, r.skipped) == (None, None, "") for r in exp.break_reasons)


def test_a_break_after_a_resume_is_named_for_the_users_function():
    _, exp = _explained("two_breaks")
    assert exp.graph_break_count == 2
    assert all(r.location.endswith(" in two_breaks") for r in exp.break_reasons)


def test_a_nested_break_is_one_break_however_often_it_is_logged():
    _, exp = _explained("nested_break")
    (r,) = exp.break_reasons
    assert r.location.split(" in ")[1] == "_level_three" and r.times >= 1
    assert "graph_break()" in r.reason or "User-inserted" in r.reason


def test_a_break_before_any_graph_is_kept():
    for name in ("print_only", "calls_disabled", "break_first", "next_on_iterator"):
        _, exp = _explained(name)
        assert exp.graph_break_count == 1, name
