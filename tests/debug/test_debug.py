"""The debugging toolbox, run for real on the CPU: each tool shows what the page says it shows."""

from __future__ import annotations

import shlex

import pytest

from snippets import debug
from snippets.core import results
from snippets.debug import findings, minifier, tables
from snippets.debug.__main__ import main
from tests.markdown import table_rows

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


def test_guards_show_the_input_size_then_a_range_once_the_batch_changed():
    text = debug.log("guards")
    assert "size=[4, 16]" in text and "size=[None, 16]" in text
    assert "LAMBDA_GUARD: 2 <= L['args'][0].size()[0]" in text
    assert str(results.ROOT) not in text


def test_dynamic_shows_where_the_batch_became_a_symbol():
    text = debug.log("dynamic")
    assert "marking L['args'][0] as dynamic" in text and "create_symbol" in text


def test_output_code_shows_the_fused_kernel_and_the_library_matmuls():
    text = debug.log("output_code")
    assert "cpp_fused_relu_0" in text and "extern_kernels.addmm" in text


def test_the_trace_has_the_compile_and_tlparse_reports_it():
    report = debug.trace_report()
    assert report["records"]["dynamo_start"] == 1
    assert report["records"]["inductor_output_code"] == 1
    if debug.tlparse_command() is None:
        pytest.skip("tlparse is not installed (it comes with the docs extra)")
    assert "index.html" in report["tlparse_files"]
    assert any(f.startswith("-_0_0_0/dynamo_output_graph") for f in report["tlparse_files"])
    # Caches off: a full compile, whatever this machine's cache holds.
    assert not any("cache_hit" in f for f in report["tlparse_files"])
    assert "| dynamo_start | 1 |" in tables.trace(report)
    assert f"$ {debug.TRACE_COMMAND}" in tables.trace(report)
    # The command shown reads the newest log of the folder the trace was written to.
    first, *_, last = debug.TRACE_COMMAND.splitlines()
    assert "TORCH_TRACE=/tmp/trace" in first.split()
    tlparse = shlex.split(last)
    assert tlparse[0] == "tlparse" and tlparse[2:] == ["-o", "tl_out", "--no-browser"]
    assert shlex.split(tlparse[1].removeprefix("$(").removesuffix(")")) == [
        "ls", "-t", "/tmp/trace/*.log", "|", "head", "-n", "1"]


def test_the_profile_shows_one_compiled_region_per_call():
    counts = {e["name"]: e["count"] for e in debug.profile_events()}
    assert counts["Torch-Compiled Region: 0/0"] == 3
    assert counts["TorchDynamo Cache Lookup"] == 3
    # The fused C++ kernel has a row of its own, as the page says.
    assert [n for n in counts if "cpp_fused_relu" in n]


def test_every_broken_example_has_its_registry_entry():
    rows = debug.registry_rows()
    assert {r["example"].split(":")[0] for r in rows} >= {"Data-dependent control flow",
                                                          "Printing in forward"}
    if not debug.registry():
        pytest.skip("this torch ships no graph-break registry")
    assert all(r["id"].startswith("GB") for r in rows)
    ids = {cells[0]: cells[1] for cells in table_rows(tables.registry(rows))}
    assert ids["Data-dependent control flow: if .item()"].startswith("GB")
    assert "{" not in tables.registry(rows)  # every placeholder shown as a blank to fill in


def test_a_registry_template_shows_its_placeholders_as_blanks_in_code():
    assert tables.template("cannot wrap {value_type}") == "cannot wrap `<value_type>`"
    assert (tables.template("operator `{fn.__name__}` with {real_arg_types}")
            == "operator `<name>` with `<real_arg_types>`")


def test_the_minifier_is_shown_as_export_lines_and_a_script_that_runs():
    shell = tables.minify_commands()
    assert "export TORCHDYNAMO_REPRO_AFTER=aot" in shell and "python wrong_answer.py" in shell
    source = minifier.WRONG_ANSWER.read_text()
    assert "inject_relu_bug_TESTING_ONLY" in source and 'if __name__ == "__main__":' in source


def test_minified_findings_say_whether_the_planted_bug_is_what_is_left():
    doc = results.load(results.ROOT / "docs/results/cpu-intel-xeon_torch-2.14.1/"
                       "debug-minifier.json")
    found = findings.minified(doc)
    row = doc["rows"][0]
    assert (found.nodes_before, found.nodes_after, found.queries) == (
        row["nodes_before"], row["nodes_after"], row["queries"])
    assert found.mismatch and found.culprit is findings.Culprit.FOUND
    doc["rows"][0] = {**row, "error": None, "repro_forward": "def forward(self, x): ..."}
    assert findings.minified(doc) == findings.Minified(False, row["nodes_before"],
                                                       row["nodes_after"], row["queries"],
                                                       findings.Culprit.MISSED)
    shown = tables.minifier(doc)
    assert shown.endswith("def forward(self, x): ...\n```")
    assert [r[0] for r in table_rows(shown)] == ["Compile with the check on", "Minify"]


@pytest.mark.slow
def test_the_minifier_finds_the_planted_relu_bug():
    row = minifier.run()
    assert row["error"].startswith("AccuracyError")
    assert row["nodes_after"] < row["nodes_before"] and row["queries"] > 0
    assert "aten.relu" in row["repro_forward"]


def test_the_command_line_needs_to_be_told_what_to_run(capsys):
    with pytest.raises(SystemExit) as exc:
        main([])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "--minify" in err


def test_an_unwritable_output_is_refused_before_minutes_of_work(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--minify", "--output", "/no/such/folder/m.json"])
    assert exc.value.code == 2 and "does not exist" in capsys.readouterr().err
