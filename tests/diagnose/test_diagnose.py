"""The diagnosis of small models with known breaks and recompiles: counts, lines, verdict kinds."""

from __future__ import annotations

import dataclasses
import inspect

import pytest
import torch

from snippets import diagnose
from snippets.core import config, measure, results
from snippets.core.findings import Verdict
from snippets.diagnose import findings, report, shapes
from snippets.diagnose.findings import Advice, ModeRun, Phase, RiskKind, Section, Status, Strategy
from snippets.explain import Explanation, fastpath
from tests.diagnose import models
from tests.markdown import all_rows

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
SCHEDULE = (4, 8, 2, 16)


def _line(cls: type, marker: str) -> int:
    lines, first = inspect.getsourcelines(cls)
    return first + next(i for i, text in enumerate(lines) if marker in text)


def test_recompiles_are_counted_per_strategy():
    with torch.no_grad():
        by = {s.name: s for s in (shapes.count_compiles(models.clean, name, SCHEDULE)
                                  for name in diagnose.STRATEGIES)}
    # static at 4, then one dynamic recompile at 8 that serves every later size
    assert by["default"].compiles == 2 and by["default"].compiled_at == (4, 8)
    assert by["default"].recompiled == ("forward in tests/diagnose/models.py:28",)
    assert any("size mismatch at index 0" in f for f in by["default"].guard_failures)
    assert by["mark_dynamic"].compiles == 1 and by["mark_dynamic"].recompiled == ()
    assert by["dynamic=True"].compiles == 1
    assert all(s.correct and not s.errors for s in by.values())
    assert findings.best_strategy(tuple(by.values())).name == "mark_dynamic"


def test_a_torch_nn_module_recompiles_under_its_own_name():
    # Dynamo compiles a module its trace rules skip through a wrapper frame in torch's own files.
    with torch.no_grad():
        got = shapes.count_compiles(models.encoder, "default", (2, 3))
    assert got.recompiled == ("TransformerEncoder.forward (torch.compile's wrapper frame)",)


def _diagnosed(factory, **fields) -> tuple[Section, ...]:
    cfg = diagnose.DiagnoseConfig(device="cpu", shapes="batch=4,8,2", rounds=3, sample_ms=5.0,
                                  **fields)
    return diagnose.diagnose(cfg, factory)


@pytest.fixture(scope="module")
def branchy() -> tuple[Section, ...]:
    torch._dynamo.reset()
    # Every phase must finish however busy the machine is: a budget no run here reaches, so that
    # a slow compile on a crowded host never skips the stalls this module's tests read.
    return _diagnosed(models.branchy, budget_s=3600.0)


def test_breaks_name_the_users_line(branchy):
    breaks = branchy[0]
    assert breaks.phase is Phase.BREAKS and breaks.status is Status.DONE
    exp = breaks.found
    assert (exp.graph_count, exp.graph_break_count) == (2, 1)
    line = _line(models.Branchy, "BREAK_LINE")
    assert exp.break_reasons[0].location == f"tests/diagnose/models.py:{line} in forward"
    assert report.fix_link(exp.break_reasons[0].kind, exp.break_reasons[0].reason).endswith(
        "#data-dependent-control-flow")


def test_every_phase_finishes_and_the_verdict_names_the_risks(branchy):
    assert [(s.phase, s.status) for s in branchy] == [(p, Status.DONE) for p in Phase]
    modes = {m.mode: m for m in branchy[1].found}
    assert set(modes) == {"eager", "default"}
    assert modes["default"].status == "ok" and modes["default"].rel_err < 1e-4
    assert modes["default"].compile_s > 0 and modes["default"].warm_s > 0
    assert modes["default"].latency is not None
    # the remedy measured against the recompiling run, each with Inductor in an empty cache
    by = {st.name: st for st in branchy[2].found}
    assert by["default"].stall_s > 0 and by[findings.recommend(branchy).shapes].stall_s > 0
    rec = findings.recommend(branchy)
    assert rec.advice in (Advice.COMPILE, Advice.STAY_EAGER)  # speed is not asserted
    line = _line(models.Branchy, "BREAK_LINE")
    kinds = {(r.kind, r.where) for r in rec.risks}
    assert (RiskKind.BREAK, f"tests/diagnose/models.py:{line} in forward") in kinds
    assert any(k is RiskKind.RECOMPILE for k, _ in kinds)


def test_fp32_products_on_cuda_without_tf32_are_a_risk(branchy):
    # branchy's two linear layers, one in each graph
    no_tf32 = [r for r in findings.risks(branchy, "cuda", "highest")
               if r.kind is RiskKind.NO_TF32]
    assert [r.count for r in no_tf32] == [2]
    assert report.risk_link(RiskKind.NO_TF32, no_tf32[0].where).startswith(
        "docs/speed-settings.md#tf32")
    for device_type, precision in (("cuda", "high"), ("cpu", "highest")):
        assert RiskKind.NO_TF32 not in {r.kind for r in findings.risks(branchy, device_type,
                                                                       precision)}


def test_convolutions_miss_tf32_only_where_cudnn_tf32_was_off():
    # a ResNet-like graph: 3 convolutions and 1 linear; cuDNN's TF32 is on by default in torch
    assert torch.backends.cudnn.allow_tf32 is True
    graph = Explanation(1, 0, (), (("conv2d", "relu", "conv2d", "conv2d", "linear"),))
    done = (Section(Phase.BREAKS, Status.DONE, 0.0, found=graph),)
    count = {(p, tf32): [r.count for r in findings.risks(done, "cuda", p, tf32)
                         if r.kind is RiskKind.NO_TF32]
             for p in ("highest", "high") for tf32 in (True, False)}
    assert count == {("highest", True): [1], ("highest", False): [4],
                     ("high", True): [], ("high", False): [3]}
    assert findings.matmul_ops(done) == 4  # what max-autotune benchmarks: both kinds


def test_the_results_document_validates(branchy):
    doc = diagnose.document(diagnose.DiagnoseConfig(device="cpu"), "tests.diagnose.models:branchy",
                            branchy, commit="abc")
    results.validate(doc, kind="diagnose")
    assert [r["phase"] for r in doc["rows"]] == [p.value for p in Phase]
    assert doc["complete"] and doc["verdict"]["advice"] in {a.value for a in Advice}
    drawn = all_rows(report.summary(doc))  # the Results page's drawing of a recorded diagnosis
    risks = {cells[0]: cells for cells in drawn if len(cells) == 4 and cells[0] in
             {k.value for k in RiskKind}}
    assert risks["graph break"][1].startswith("tests/diagnose/models.py:")
    assert [report.SAY["batch"], "4"] in drawn and ["modes", "done"] in [c[:2] for c in drawn]
    # each risk links the section that fixes it, as served from a page
    assert risks["graph break"][3].endswith("(../graph-breaks/#data-dependent-control-flow)")
    assert risks["recompile"][3].endswith("(../dynamic-shapes/#the-strategies)")


def _mode(name, status, eager_ms, ms, compile_s=2.0):
    eager = measure.Measurement((eager_ms,) * 5)
    m = measure.Measurement((ms,) * 5)
    return ModeRun(name, status, compile_s=compile_s, latency=m,
                   speedup=measure.speedup(eager, m),
                   break_even_calls=compile_s * 1e3 / (eager_ms - ms) if eager_ms > ms else None)


def test_the_verdict_takes_the_fastest_correct_mode_and_the_shape_remedy():
    strategies = (Strategy("default", 3, (4, 8, 2)), Strategy("mark_dynamic", 1, (4,)),
                  Strategy("dynamic=True", 1, (4,)))
    sections = (Section(Phase.RECOMPILES, Status.DONE, 1.0, found=strategies),
                Section(Phase.MODES, Status.DONE, 1.0, found=(
                    _mode("default", "ok", 10.0, 5.0), _mode("reduce-overhead", "mismatch", 10, 1),
                    _mode("max-autotune-no-cudagraphs", "ok", 10.0, 4.0))))
    rec = findings.recommend(sections)
    assert (rec.advice, rec.mode, rec.shapes) == (Advice.COMPILE, "max-autotune-no-cudagraphs",
                                                  "mark_dynamic")
    assert rec.compile_args == (("mode", "'max-autotune-no-cudagraphs'"),)
    assert rec.before_call == ("torch._dynamo.mark_dynamic(x, 0)",)
    assert rec.break_even_calls == pytest.approx(2000 / 6)
    assert (RiskKind.MISMATCH, "reduce-overhead") in {(r.kind, r.where) for r in rec.risks}


def test_nothing_that_pays_is_stay_eager_and_nothing_timed_is_undecided():
    slow = (Section(Phase.MODES, Status.DONE, 1.0, found=(_mode("default", "ok", 5.0, 6.0),)),)
    assert findings.recommend(slow).advice is Advice.STAY_EAGER
    assert report.code_lines(findings.recommend(slow)) == ()
    fault = (Section(Phase.MODES, Status.FAULT, 1.0, "RuntimeError: boom"),)
    assert findings.recommend(fault).advice is Advice.UNDECIDED


def test_torch_nn_fast_path_ops_in_the_graph_are_a_risk_and_off_when_it_is_off():
    model, x = models.encoder(2)
    model.eval()
    found = diagnose.breaks(model, x, diagnose.Budget(60))
    fast = [r for r in findings.risks((found,)) if r.kind is RiskKind.FAST_PATH]
    assert [(r.where, r.count) for r in fast] == [("_transformer_encoder_layer_fwd", 2)]
    torch._dynamo.reset()
    with fastpath.fastpath(False):
        off = diagnose.breaks(model, x, diagnose.Budget(60))
    assert not [r for r in findings.risks((off,)) if r.kind is RiskKind.FAST_PATH]


def test_a_gain_beyond_the_noise_but_under_worth_is_stay_eager():
    # 1.01x with no spread pays beyond the noise; it is still under findings.WORTH
    small = (Section(Phase.MODES, Status.DONE, 1.0, found=(_mode("default", "ok", 10.1, 10.0),)),)
    rec = findings.recommend(small)
    assert (rec.advice, rec.verdict, rec.mode) == (Advice.STAY_EAGER, Verdict.PAYS, "default")
    assert report.code_lines(rec) == ()


def test_autotuning_needs_a_budget_scaled_by_the_default_modes_compile():
    default = ModeRun("default", "ok", compile_s=30.0, warm_s=10.0)
    assert diagnose.compile_needs_s("reduce-overhead", {"default": default}) == \
        diagnose.NEEDS_S["compile"]
    assert diagnose.compile_needs_s("max-autotune-no-cudagraphs", {"default": default}) == \
        diagnose.AUTOTUNE_TIMES * 40.0
    # the default skipped or fast: the floor holds
    assert diagnose.compile_needs_s("max-autotune", {}) == diagnose.NEEDS_S["autotune"]
    # many products and convolutions to benchmark: their count sets the need
    assert diagnose.compile_needs_s("max-autotune", {"default": default}, tuned_ops=54) == \
        diagnose.TUNE_S_PER_OP * 54


def test_the_stalls_need_a_cold_compile_per_graph_the_two_strategies_compile():
    default = Strategy("default", 2, (4, 8), (), (), (), True)
    best = Strategy("mark_dynamic", 1, (4,), (), (), (), True)
    assert diagnose.stalls_need_s(default, best, 39.0) == 39.0 * 3
    assert diagnose.stalls_need_s(default, best, 1.0) == diagnose.NEEDS_S["stalls"]
    assert diagnose.stalls_need_s(default, best, None) == diagnose.NEEDS_S["stalls"]


def test_the_ops_autotuning_benchmarks_are_counted_from_the_breaks_phase():
    with torch.no_grad():
        sections = diagnose.diagnose(
            diagnose.DiagnoseConfig(device="cpu", shapes="batch=2", rounds=2, sample_ms=2.0),
            models.branchy, budget=diagnose.Budget(10, clock=lambda: 0.0))
    assert findings.matmul_ops(sections) == 2  # two linear layers, one in each graph
    assert findings.matmul_ops(()) == 0


def test_a_small_budget_skips_and_says_what():
    # 10 s left throughout: enough for a Dynamo-only pass, not for an Inductor compile.
    budget = diagnose.Budget(10, clock=lambda: 0.0)
    cfg = diagnose.DiagnoseConfig(device="cpu", shapes="batch=2,4", rounds=2, sample_ms=2.0)
    found = {s.phase: s for s in diagnose.diagnose(cfg, models.clean, budget=budget)}
    assert len(found[Phase.RECOMPILES].found) == len(diagnose.STRATEGIES)
    modes = found[Phase.MODES]
    assert modes.status is Status.DONE and modes.found == ()
    # one skip, of the default mode: the numbers of its budget, not the wording around them
    assert len(modes.skipped) == 1 and modes.skipped[0].split(":")[0] == "default"
    assert [int(w) for w in modes.skipped[0].split() if w.isdigit()] == [20, 10]
    assert findings.recommend(tuple(found.values())).advice is Advice.UNDECIDED
    gone = diagnose.diagnose(cfg, models.clean, budget=diagnose.Budget(0, clock=lambda: 0.0))
    assert [s.status for s in gone] == [Status.SKIPPED] * len(Phase)


def test_a_fault_in_one_phase_is_recorded_and_the_rest_goes_on(monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("no recompiles today")

    monkeypatch.setattr(shapes, "count_compiles", boom)
    found = _diagnosed(models.clean, budget_s=3600.0)
    status = {s.phase: s for s in found}
    assert status[Phase.RECOMPILES].status is Status.FAULT
    assert "no recompiles today" in status[Phase.RECOMPILES].message
    assert status[Phase.BREAKS].status is Status.DONE
    assert status[Phase.MODES].status is Status.DONE


def test_shapes_are_checked_by_the_config():
    assert diagnose.parse_shapes("batch=1,8,32") == (1, 8, 32)
    for bad in ("1,8", "seq=1,2", "batch=a", "batch=0,2", "batch="):
        with pytest.raises(config.ConfigError):
            diagnose.DiagnoseConfig(shapes=bad)
    assert dataclasses.replace(diagnose.DiagnoseConfig(), shapes="batch=2").schedule == (2,)


def test_a_mode_that_fails_is_its_own_row_and_the_others_are_timed(monkeypatch):
    monkeypatch.setitem(diagnose.DEVICE_MODES, "cpu", ("no-such-mode", "default"))
    cfg = diagnose.DiagnoseConfig(device="cpu", shapes="batch=2", rounds=2, sample_ms=2.0)
    model, x = models.clean(2)
    with torch.no_grad():
        found = diagnose.modes(cfg.resolve(), model.eval(), x, diagnose.Budget(120))
    runs = {m.mode: m for m in found.found}
    assert runs["no-such-mode"].status == "error" and runs["no-such-mode"].speedup is None
    assert runs["default"].status == "ok" and runs["default"].speedup is not None


@pytest.mark.parametrize("form, mark", [
    ("x", "torch._dynamo.mark_dynamic(x, 0)"),
    ("**x", "for t in x.values(): torch._dynamo.mark_dynamic(t, 0)"),
    ("*x", "for t in x: torch._dynamo.mark_dynamic(t, 0)"),
])
def test_the_code_to_paste_passes_the_example_as_the_model_takes_it(form, mark):
    """A dict of token ids and a mask is passed as keyword arguments, each tensor marked."""
    sections = (Section(Phase.BREAKS, Status.DONE, 1.0, form=form),
                Section(Phase.RECOMPILES, Status.DONE, 1.0, found=(
                    Strategy("default", 3, (4, 8, 2)), Strategy("mark_dynamic", 1, (4,)))),
                Section(Phase.MODES, Status.DONE, 1.0, found=(_mode("default", "ok", 10.0, 5.0),)))
    rec = findings.recommend(sections)
    assert rec.before_call == (mark,)
    assert rec.call == f"y = model({form})"
