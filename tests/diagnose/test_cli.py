"""python -m snippets.diagnose: the report in each format, and one line for each mistake."""

from __future__ import annotations

import json

import pytest

from snippets.diagnose.__main__ import PROG, main
from tests.cli_run import assert_one_line_error, run

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
# A budget that fits the Dynamo-only parts, not an Inductor compile: the formats, in seconds.
FAST = ("--device", "cpu", "--shapes", "batch=2,4", "--rounds", "2", "--budget-s", "15")


@pytest.mark.parametrize("argv, expect", [
    (("tests.diagnose.nowhere:branchy",), "cannot import"),
    (("tests.diagnose.models",), "pkg.module:factory"),
    (("tests.diagnose.models:NOT_A_FACTORY",), "no callable"),
    (("tests.diagnose.models:wrong", *FAST), "must return (nn.Module, example)"),
    (("tests.diagnose.models:clean", "--shapes", "batch=x"), "--shapes"),
    (("tests.diagnose.models:clean", "--shapes", "seq=64"), "--shapes"),
    (("tests.diagnose.models:clean", "--device", "tpu"), "unknown device"),
    (("tests.diagnose.models:clean", "--budget-s", "0"), "--budget-s"),
    (("tests.diagnose.models:clean", "--matmul-precision", "tf32"), "--matmul-precision"),
])
def test_mistakes_are_one_line(capsys, argv, expect):
    assert_one_line_error(*run(main, capsys, *argv), expect, prog=PROG)


def test_json_and_markdown(capsys, tmp_path):
    code, out, _ = run(main, capsys, "tests.diagnose.models:branchy", *FAST, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["kind"] == "diagnose" and len(doc["rows"]) == 3
    assert doc["rows"][0]["found"]["graph_break_count"] == 1
    md = tmp_path / "report.md"
    code, out, _ = run(main, capsys, "tests.diagnose.models:clean", *FAST, "--format",
                       "markdown", "--output", str(md))
    assert code == 0 and md.read_text() == out and out.startswith("# tests.diagnose.models:clean")


def test_ctrl_c_keeps_the_finished_phases(capsys, monkeypatch):
    from snippets import diagnose

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(diagnose, "recompiles", interrupted)  # the last phase
    code, out, err = run(main, capsys, "tests.diagnose.models:clean", *FAST, "--format", "json")
    assert code == 130 and "2 finished phases kept" in err
    doc = json.loads(out)
    assert [r["phase"] for r in doc["rows"]] == ["graph breaks", "modes"]
    assert not doc["complete"]


def test_the_terminal_report_names_the_break_line_and_the_mode_it_skipped(capsys):
    from snippets import diagnose

    code, out, _ = run(main, capsys, "tests.diagnose.models:branchy", *FAST)
    assert code == 0 and "tests/diagnose/models.py:" in out
    # the default mode's compile did not fit the budget: the line gives what it needs first
    skip = next(line for line in out.splitlines() if "default:" in line and "skipped" in line)
    assert [int(w) for w in skip.split() if w.isdigit()][0] == diagnose.NEEDS_S["compile"]


def test_the_precision_is_the_benchmarks_on_cuda_and_torchs_on_the_cpu():
    from snippets.core import backends
    from snippets.diagnose import DiagnoseConfig

    assert DiagnoseConfig(device="cuda").resolve().matmul_precision == "high"
    assert (DiagnoseConfig(device="cuda").resolve().matmul_precision
            == backends.DEFAULT["cuda"].matmul_precision)
    assert DiagnoseConfig(device="cpu").resolve().matmul_precision == "highest"


def test_the_precision_is_set_for_the_run_recorded_and_restored(capsys):
    import torch

    was = torch.get_float32_matmul_precision()
    code, out, _ = run(main, capsys, "tests.diagnose.models:clean", *FAST,
                       "--matmul-precision", "high", "--format", "json")
    assert code == 0
    assert json.loads(out)["provenance"]["settings"]["matmul_precision"] == "high"
    assert torch.get_float32_matmul_precision() == was
