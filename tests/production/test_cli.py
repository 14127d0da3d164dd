"""python -m snippets.production and its child: one line and exit code 2 for each mistake, a
refused pinned file, and a tiny real start-up run whose file is schema-valid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from snippets.core import results
from snippets.production import pinning, startup
from snippets.production.__main__ import main
from tests import cli_run

ROOT = Path(__file__).resolve().parents[2]
TINY = "snippets.core.models:tiny_mlp"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    return cli_run.run(main, capsys, *argv)


@pytest.mark.parametrize(("argv", "expect"), [
    ([], "choose one run: --startup, --stream, --modes, --hazards"),
    (["--startup", "--stream"], "not allowed with argument"),
    (["--startup", "--models", "resnet5"], "not of the form pkg.module:factory"),
    (["--startup", "--paths", "jit"], "unknown path 'jit'"),
    (["--startup", "--repetitions", "0"], "0 is not a positive number"),
    (["--modes", "--compile-modes", "fast"], "unknown mode 'fast'"),
    (["--modes", "--models", "tests.real_models:no_such"], "has no callable 'no_such'"),
    (["--stream", "--append"], "--append is for --startup, --modes"),
    (["--startup", "--append"], "--append needs --output"),
    (["--hazards", "--device", "cpu"], "--hazards needs a CUDA device"),
    (["--startup", "--device", "tpu"], "unknown device 'tpu'"),
    (["--startup", "--output", "/no/such/dir/r.json"], "does not exist"),
    (["--stream", "--size", "huge"], "invalid choice: 'huge'"),
    (["--startup", "--size", "large"], "--size needs --stream"),
    (["--stream", "--device", "cpu", "--mode", "reduce-overhead"], "needs CUDA"),
    (["--modes", "--mode", "reduce-overhead"], "--mode needs --stream"),
])
def test_bad_input_gets_one_line_and_exit_2(capsys, argv, expect):
    cli_run.assert_one_line_error(*run_cli(capsys, *argv), expect)


def test_merge_into_a_file_of_another_kind_is_one_line(capsys, cpu_bench_run):
    code, _, err = run_cli(capsys, "--startup", "--output", str(cpu_bench_run), "--append")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "expected" in err


def _child(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "snippets.production.child", *argv],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_the_child_refuses_a_package_of_another_release(tmp_path):
    package = tmp_path / "model.pt2"
    stamp = {**pinning.current(torch.device("cpu")), "torch": "2.11.0+cu130"}
    pinning.write(package, b"not really a package", stamp)
    proc = _child("--path", "aot-load", "--model", TINY, "--package", str(package))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr
    assert "was made under torch 2.11.0+cu130" in lines[0]


def _tiny_startup(capsys, out, paths: str):
    """One short start-up run of the tiny model on the CPU along ``paths``, into ``out``."""
    return run_cli(capsys, "--startup", "--device", "cpu", "--models", TINY, "--paths", paths,
                   "--repetitions", "1", "--calls", "2", "--rounds", "1", "--output", str(out),
                   "--format", "json")


def test_a_tiny_startup_run_is_a_valid_results_file(tmp_path, capsys):
    out = tmp_path / "production-startup.json"
    code, stdout, _ = _tiny_startup(capsys, out, "eager,compile-empty,regional")
    assert code == 0
    doc = results.load(out, startup.KIND)
    assert doc["complete"] and json.loads(stdout)["rows"] == doc["rows"]
    rows = {r["path"]: r for r in doc["rows"]}
    assert rows["eager"]["status"] == rows["compile-empty"]["status"] == "ok"
    assert rows["regional"]["status"] == "unsupported"  # a two-layer model has no blocks
    assert rows["eager"]["graphs_compiled"] == 0 and rows["compile-empty"]["graphs_compiled"]
    first, steady = rows["compile-empty"]["first_s"], rows["compile-empty"]["steady_s"]
    assert 0 < rows["compile-empty"]["import_s"] < first <= steady


def test_a_package_builds_and_loads_in_fresh_processes_cold_warm_and_trusted(tmp_path, capsys):
    # The real AOTInductor path end to end: export and compile in one process, load in another
    # with an empty cache folder, again on that folder, and with the CPU check answered from the
    # CPU's flags, each answer checked against eager.
    out = tmp_path / "production-startup.json"
    code, _, _ = _tiny_startup(capsys, out, "aot-build,aot-load,aot-load-warm,aot-load-trusted")
    assert code == 0
    rows = {r["path"]: r for r in results.load(out, startup.KIND)["rows"]}
    assert [r["status"] for r in rows.values()] == ["ok", "ok", "ok", "ok"]
    for path in ("aot-load", "aot-load-warm", "aot-load-trusted"):  # loading compiles nothing,
        assert rows[path]["graphs_compiled"] == 0  # and says what the CPU check took of it
        assert 0 <= rows[path]["isa_check_s"] <= rows[path]["ready_s"] - rows[path]["import_s"]
        assert rows[path]["isa_trusted"] == (path == "aot-load-trusted")


def test_the_eager_switch_reaches_a_fresh_service():
    proc = subprocess.run(
        [sys.executable, "-m", "snippets.production.child", "--path", "compile", "--model",
         TINY, "--calls", "2", "--rounds", "1"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "SNIPPETS_EAGER": "1"},
        capture_output=True, text=True, timeout=300)
    rec = json.loads(proc.stdout.strip().splitlines()[-1])
    assert proc.returncode == 0 and rec["eager_switch"] and rec["graphs_compiled"] == 0
    assert rec["rel_err"] == 0.0


def test_a_precompiled_function_builds_and_loads_in_fresh_processes_cold_and_warm(tmp_path,
                                                                                   capsys):
    # Python-side ahead-of-time compile end to end: torch.compile(...).aot_compile and the
    # saved function in one process, loaded in another on an empty cache folder and again on
    # the folder the build filled, each answer checked against eager. Loading traces nothing.
    out = tmp_path / "production-startup.json"
    code, _, _ = _tiny_startup(capsys, out,
                               "precompile-build,precompile-load,precompile-load-warm")
    assert code == 0
    rows = {r["path"]: r for r in results.load(out, startup.KIND)["rows"]}
    assert [r["status"] for r in rows.values()] == ["ok", "ok", "ok"]
    assert rows["precompile-build"]["build_s"] > 0
    for path in ("precompile-load", "precompile-load-warm"):
        assert rows[path]["graphs_compiled"] == 0 and rows[path]["rel_err"] <= 1e-5
        assert rows[path]["isa_checked"] is True  # the tiny MLP's kernels are Inductor's C++
