"""python -m snippets.train: one line and exit code 2 for each mistake, --compare, --append, and
interrupted runs that keep every finished row."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from snippets import train
from snippets.core import config, results
from snippets.train import compare
from snippets.train.__main__ import PROG, main
from tests import cli_run

from .conftest import QUICK, ROOT

TINY = "snippets.core.models:tiny_mlp"  # ten logits: a classifier as it stands
FAULTS = "tests.fault_models"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    return cli_run.run(main, capsys, *argv)


@pytest.mark.parametrize("argv, expect", [
    (["--models", "resnet5"], "unknown model 'resnet5'"),
    (["--variants", "fast"], "unknown variant 'fast'"),
    (["--dtype", "fp16"], "invalid choice: 'fp16'"),
    (["--batch-sizes", "0"], "0 is not a positive number"),
    (["--batch-sizes", "one"], "'one' is not a whole number"),
    (["--steps", "-1"], "not a positive number"),
    (["--rounds", "0"], "0 is not a positive number"),
    (["--profile-steps", "-1"], "-1 is not"),
    (["--device", "tpu"], "unknown device 'tpu'"),
    (["--model", "no_such_pkg.mod:f"], "cannot import 'no_such_pkg.mod'"),
    (["--model", f"{FAULTS}:missing"], "has no callable 'missing'"),
    (["--model", f"{FAULTS}:wrong_return", *QUICK], "must return (nn.Module, example)"),
    (["--model", f"{FAULTS}:raises", *QUICK], "planted factory failure"),
    (["--output", "/no/such/dir/r.json"], "does not exist"),
    (["--compare", "/no/such/file.json"], "no such file"),
    (["--append"], "--append needs --output"),
])
def test_bad_input_gets_one_line_and_exit_2(capsys, argv, expect):
    cli_run.assert_one_line_error(*run_cli(capsys, *argv), expect)


def test_a_bench_file_is_no_training_file(cpu_bench_run, capsys):
    code, _, err = run_cli(capsys, "--compare", str(cpu_bench_run))
    assert code == 2 and "expected 'snippets.train/1'" in err
    assert len(err.strip().splitlines()) == 1


def test_no_traceback_from_a_real_process():
    proc = subprocess.run([sys.executable, "-m", "snippets.train", "--variants", "nope"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    cli_run.assert_one_line_error(
        proc.returncode, proc.stdout, proc.stderr, "argument --variants:",
        "unknown variant 'nope'", f"choose from {', '.join(train.VARIANTS)} or all", prog=PROG)


def test_help_states_the_defaults_the_code_uses(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    cuda, cpu = train.DEFAULTS["cuda"], train.DEFAULTS["cpu"]
    assert config.help_default(train.DEFAULTS, "steps") in text  # its wording: test_backends.py
    models = f"{','.join(cuda['models'])}onCUDA,{','.join(cpu['models'])}onCPU"
    assert f"(default:{models})" in text.replace(" ", "")  # argparse wraps at hyphens


def test_compare_and_append(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert run_cli(capsys, "--model", TINY, *QUICK, "--variants", "eager", "--output",
                   str(out))[0] == 0
    code, text, _ = run_cli(capsys, "--model", TINY, *QUICK, "--variants", "model",
                            "--output", str(out), "--append", "--compare", str(out),
                            "--format", "markdown")
    doc = results.load(out, train.KIND)
    # the same-settings title: the one the CLI prints where no setting differs
    assert code == 0 and compare.compare_title(doc, doc) in text
    # The second command's eager row, which its `model` row is timed against, replaces the
    # first's, which no compiled row needs.
    assert [(r["variant"], r["part"]) for r in doc["rows"]] == [("eager", 1), ("model", 1)]
    code, _, err = run_cli(capsys, "--model", TINY, *QUICK, "--steps", "3", "--output",
                           str(out), "--append")
    cli_run.assert_one_line_error(code, "", err, "--append:", "setting steps is",
                                  "3 here, 5 in the file", prog=PROG)


def _ctrl_c_reaches_the_child() -> None:
    # A test run started in a shell's background inherits SIGINT ignored, and so would the run
    # it starts: Python then never turns Ctrl-C into KeyboardInterrupt. Restore the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_a_run_stopped_midway_leaves_a_valid_file(tmp_path, sig):
    # Many batch sizes of a tiny model in eager mode: rows arrive every fraction of a second.
    out = tmp_path / "r.json"
    sizes = ",".join(str(n) for n in range(1, 200))
    proc = subprocess.Popen(
        [sys.executable, "-m", "snippets.train", "--model", TINY, "--variants", "eager",
         "--batch-sizes", sizes, *QUICK, "--output", str(out), "--format", "json"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=_ctrl_c_reaches_the_child)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and len(json.loads(out.read_text())["rows"]) >= 2:
                break
            time.sleep(0.1)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    doc = results.load(out)
    assert len(doc["rows"]) >= 2 and not doc["complete"]
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and "Traceback" not in err


def test_ctrl_c_inside_dynamo_still_stops_the_run(tmp_path):
    # The second model sends itself Ctrl-C from inside Dynamo's trace, where torch can swallow
    # it; the run must stop anyway, keep the first model's rows, and say so without a traceback.
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [sys.executable, "-m", "snippets.train", "--model", TINY, "--model",
         "tests.train.faults:interrupts_while_tracing", "--variants", "model", *QUICK,
         "--output", str(out), "--format", "json"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=240, preexec_fn=_ctrl_c_reaches_the_child)
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert "interrupted: 2 finished rows kept" in proc.stderr and "Traceback" not in proc.stderr
    doc = results.load(out)
    assert [r["model"] for r in doc["rows"]] == [TINY, TINY] and not doc["complete"]
    assert json.loads(proc.stdout)["rows"] == doc["rows"]  # the table of what was finished
