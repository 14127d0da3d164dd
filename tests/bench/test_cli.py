"""python -m snippets.bench: one line and exit code 2 for each mistake, --compare, interrupted
runs that keep every finished row."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from snippets.bench import tables
from snippets.bench.__main__ import PROG, main
from snippets.core import config, models, results
from tests import cli_run

ROOT = Path(__file__).resolve().parents[2]
TINY = "snippets.core.models:tiny_mlp"
FAULTS = "tests.fault_models"
# Small and quick: the tiny model on the CPU, few rounds, no untimed rounds.
QUICK = ["--device", "cpu", "--rounds", "3", "--warm-rounds", "0"]


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    return cli_run.run(main, capsys, *argv)


@pytest.mark.parametrize("argv, expect", [
    (["--models", "resnet5"], "unknown model 'resnet5'"),
    (["--modes", "fast"], "unknown mode 'fast'"),
    (["--dtype", "fp8"], "invalid choice: 'fp8'"),
    (["--batch-sizes", "0"], "0 is not a positive number"),
    (["--batch-sizes", "-4"], "not a positive number"),
    (["--batch-sizes", "one"], "'one' is not a whole number"),
    (["--batch-sizes", "1,,2"], "empty item"),
    (["--device", "tpu"], "unknown device 'tpu'"),
    (["--model", "no_such_pkg.mod:f"], "cannot import 'no_such_pkg.mod'"),
    (["--model", FAULTS], "not of the form pkg.module:factory"),
    (["--model", f"{FAULTS}:missing"], "has no callable 'missing'"),
    (["--model", f"{FAULTS}:wrong_return", *QUICK], "must return (nn.Module, example)"),
    (["--model", f"{FAULTS}:raises", *QUICK], "planted factory failure"),
    (["--output", "/no/such/dir/r.json"], "does not exist"),
    (["--compare", "/no/such/file.json"], "no such file"),
])
def test_bad_input_gets_one_line_and_exit_2(capsys, argv, expect):
    cli_run.assert_one_line_error(*run_cli(capsys, *argv), expect)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_asked_for_without_a_gpu(capsys):
    code, _, err = run_cli(capsys, "--device", "cuda")
    assert code == 2 and "no CUDA device" in err


def test_unwritable_output(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if os.access(locked, os.W_OK):  # root ignores mode bits: a directory stands in
        target = tmp_path
    else:
        target = locked / "r.json"
    code, _, err = run_cli(capsys, "--output", str(target))
    assert code == 2 and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("content, expect", [
    ("{not json", "not valid JSON"),
    (json.dumps({"schema": "snippets.bench/0", "rows": []}), "schema"),
    (json.dumps([1, 2]), "not a results document"),
])
def test_bad_compare_file(tmp_path, capsys, content, expect):
    f = tmp_path / "old.json"
    f.write_text(content)
    code, _, err = run_cli(capsys, "--compare", str(f))
    assert code == 2 and expect in err and len(err.strip().splitlines()) == 1


def test_no_traceback_from_a_real_process():
    proc = subprocess.run([sys.executable, "-m", "snippets.bench", "--models", "nope"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    cli_run.assert_one_line_error(
        proc.returncode, proc.stdout, proc.stderr, "argument --models:", "unknown model 'nope'",
        ", ".join(models.BUILTIN), "--model pkg.module:factory", prog=PROG)


def test_compare_prints_this_run_beside_the_recorded(tmp_path, capsys):
    old = tmp_path / "old.json"
    assert run_cli(capsys, "--model", TINY, *QUICK, "--modes", "eager", "--output",
                   str(old))[0] == 0
    new = tmp_path / "new.json"
    code, out, _ = run_cli(capsys, "--model", TINY, *QUICK, "--modes", "eager",
                           "--compare", str(old), "--format", "markdown", "--output", str(new))
    assert code == 0 and "This/recorded" in out and "recorded:" in out
    doc = results.load(new)
    assert tables.setting_differences(doc, results.load(old)) == []
    assert tables.compare_title(doc, results.load(old)) in out


def test_compare_names_the_settings_that_differ(tmp_path, capsys):
    old = tmp_path / "old.json"
    assert run_cli(capsys, "--model", TINY, *QUICK, "--modes", "eager", "--dtype", "bf16",
                   "--output", str(old))[0] == 0
    new = tmp_path / "new.json"
    code, out, _ = run_cli(capsys, "--model", TINY, *QUICK, "--modes", "eager",
                           "--compare", str(old), "--format", "markdown", "--output", str(new))
    assert code == 0
    doc, recorded = results.load(new), results.load(old)
    (diff,) = tables.setting_differences(doc, recorded)  # the one setting that differs
    assert diff.startswith("dtype") and all(
        run["provenance"]["settings"]["dtype"] in diff for run in (doc, recorded))
    assert {doc["provenance"]["settings"]["dtype"], recorded["provenance"]["settings"]["dtype"]} \
        == {"fp32", "bf16"}
    assert diff in out and tables.compare_title(doc, recorded) in out


def test_help_states_the_defaults_the_code_uses(capsys):
    from snippets import bench

    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    # The help of each flag is the table's (config.help_default, whose wording
    # tests/core/test_backends.py checks), and the table holds the defaults the code uses.
    for name in ("rounds", "warm_rounds"):
        assert config.help_default(bench.DEFAULTS, name) in text


def _ctrl_c_reaches_the_child() -> None:
    # A test run started in a shell's background inherits SIGINT ignored, and so would the run
    # it starts: Python then never turns Ctrl-C into KeyboardInterrupt. Restore the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_long_run(out: Path) -> subprocess.Popen:
    # Many batch sizes of the tiny model in eager mode: rows arrive every fraction of a second.
    sizes = ",".join(str(n) for n in range(1, 200))
    return subprocess.Popen(
        [sys.executable, "-m", "snippets.bench", "--model", TINY, "--modes", "eager",
         "--batch-sizes", sizes, *QUICK, "--output", str(out), "--format", "json"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=_ctrl_c_reaches_the_child)


def _wait_for_rows(out: Path, proc: subprocess.Popen, n: int = 2) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and len(json.loads(out.read_text())["rows"]) >= n:
            return
        time.sleep(0.1)
    raise AssertionError("no rows appeared")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM])
def test_a_run_stopped_midway_leaves_a_valid_file(tmp_path, sig):
    out = tmp_path / "r.json"
    proc = _start_long_run(out)
    try:
        _wait_for_rows(out, proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    doc = results.load(out)
    assert len(doc["rows"]) >= 2 and not doc["complete"]
    if sig != signal.SIGKILL:  # stopped as by Ctrl-C; the code says which signal (130, 143)
        # the message keeps the run's last words: a rare -2 (a KeyboardInterrupt that escaped
        # the run) was seen once on a loaded machine, and 100 runs under load did not repeat it
        assert proc.returncode == 128 + sig and "Traceback" not in err, err[-3000:]
        assert "finished rows kept" in err


def test_ctrl_c_inside_dynamo_still_stops_the_run(tmp_path):
    # The second model sends itself Ctrl-C from inside Dynamo's trace, where torch can swallow
    # it; the run must stop anyway, keep the first model's rows, and say so without a traceback.
    out = tmp_path / "r.json"
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "snippets.bench", "--model", TINY, "--model",
         f"{FAULTS}:interrupts_while_tracing", *QUICK, "--output", str(out), "--format", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
        preexec_fn=_ctrl_c_reaches_the_child)
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert "interrupted: 2 finished rows kept" in proc.stderr and "Traceback" not in proc.stderr
    doc = results.load(out)
    assert [r["model"] for r in doc["rows"]] == [TINY, TINY] and not doc["complete"]
    assert json.loads(proc.stdout)["rows"] == doc["rows"]  # the table of what was finished
    assert time.monotonic() - t0 < 200


@pytest.mark.parametrize(("flag", "expect"), [("--cudnn-benchmark", True),
                                              ("--no-cudnn-benchmark", False)])
def test_cudnn_benchmark_is_set_for_the_run_on_top_of_the_devices_defaults(flag, expect):
    from snippets.bench.__main__ import config_from_args
    from snippets.core import backends

    cfg, _ = config_from_args(["--device", "cpu", flag])
    assert cfg.backends.cudnn_benchmark is expect
    assert cfg.backends.matmul_precision == backends.DEFAULT["cpu"].matmul_precision
    assert cfg.settings()["cudnn_benchmark"] is expect  # recorded in the run's provenance


@pytest.mark.parametrize(("flag", "precision", "expect"), [("--tf32", "high", True),
                                                           ("--no-tf32", "highest", False)])
def test_tf32_sets_matmul_precision_and_cudnn_tf32_for_the_run(flag, precision, expect):
    from snippets.bench.__main__ import config_from_args
    from snippets.core import backends

    cfg, _ = config_from_args(["--device", "cpu", flag])
    assert (cfg.backends.matmul_precision, cfg.backends.cudnn_tf32) == (precision, expect)
    assert cfg.backends.cudnn_benchmark is backends.DEFAULT["cpu"].cudnn_benchmark
    assert cfg.settings()["tf32"] is expect  # recorded in the run's provenance
