"""snippets.explain: break counts of every broken example and its fixes, the CLI's answers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from snippets import break_costs, breaks, explain, fastpath, models
from snippets.explain_cli import main

CASES = [(cause.name, kind, variant) for cause in breaks.CAUSES
         for kind, variant in [("broken", cause.broken)] + [("fixed", f) for f in cause.fixes]]


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize(("cause", "kind", "variant"), CASES,
                         ids=[f"{c}-{k}-{v.name}" for c, k, v in CASES])
def test_break_counts(cause, kind, variant):
    exp = explain.explain_quietly(variant.module().eval(), *variant.args(breaks.example_input()))
    if kind == "broken" or variant.breaks_expected:
        assert exp.graph_break_count > 0
        assert exp.break_reasons and all(r.reason for r in exp.break_reasons)
        assert any("breaks.py:" in r.location for r in exp.break_reasons)
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


def test_causes_doc_schema_and_table():
    doc = explain.causes_doc()
    assert doc["schema"] == explain.SCHEMA and doc["complete"]
    assert {r["kind"] for r in doc["rows"]} == {"broken", "fixed"}
    for row in doc["rows"]:
        assert set(row) >= {"cause", "variant", "graph_count", "graph_break_count", "break_reasons"}
    table = explain.causes_markdown(doc)
    assert table.count("\n") == len(doc["rows"]) + 1


def test_latency_markdown_renders_a_results_row():
    lat = {"median": 1.5, "iqr": 0.1, "samples": [1.4, 1.5, 1.6]}
    doc = {"rows": [{"cause": "c", "variant": "v", "kind": "broken", "graph_count": 2,
                     "graph_break_count": 1, "eager_ms": lat, "compiled_ms": lat,
                     "speedup": 1.0}]}
    assert "| c | broken: v | 2 | 1 | 1.5 | 1.5 | 1.00x |" in break_costs.markdown(doc)


def test_fullgraph_turns_the_break_into_an_error():
    text = explain.fullgraph_text()
    assert "no error" not in text and "print" in text and "/work" not in text


def test_graph_break_log_names_the_line():
    log = explain.graph_break_log()
    assert "snippets/breaks.py" in log and "/work" not in log


# ---- the command line ----------------------------------------------------------------------------

def broken_factory():
    return breaks.ItemBranch().eval(), (breaks.example_input(),)


def wrong_factory():
    return breaks.ItemBranch()


def failing_factory():
    raise RuntimeError("no weights here")


def test_cli_json(capsys):
    assert main([f"{__name__}:broken_factory", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["graph_count"] > 1 and out["graph_break_count"] > 0
    assert {"reason", "location"} == set(out["break_reasons"][0])


def test_cli_text(capsys):
    assert main([f"{__name__}:broken_factory"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("graphs: ") and "at snippets/breaks.py:" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["no_such_module_xyz:f"], "cannot import 'no_such_module_xyz'"),
    (["tests.test_explain"], "is not of the form pkg.module:factory"),
    ([f"{__name__}:missing"], "has no callable 'missing'"),
    ([f"{__name__}:wrong_factory"], "must return (callable_or_module, example_args_tuple)"),
    ([f"{__name__}:failing_factory"], "failed: RuntimeError: no weights here"),
    ([], "one of the arguments"),
    ([f"{__name__}:broken_factory", "--output", "x.json"], "--output applies to"),
])
def test_cli_mistakes_are_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err and err.count("\n") == 1


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "snippets.explain", "no_such_module_xyz:f"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("python -m snippets.explain: error:")


def test_load_target_reports_spec_errors():
    with pytest.raises(models.SpecError):
        explain.load_target("snippets.breaks:WIDTH")
