"""python -m snippets.scale and its ranks: one line and exit code 2 for each mistake, a failing
configuration kept in its row while the run goes on, and --append's checks."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
import torch

from snippets import scale
from snippets.core import results
from snippets.scale import rank
from snippets.scale.__main__ import main
from tests import cli_run

from .conftest import MLP, ROOT
from .test_scale import _gone, _running

FAILS = "tests.scale.models:fails_on_rank_1"
HANGS = "tests.scale.models:hangs_on_rank_1"


def run_cli(capsys, *argv: str, entry=main) -> tuple[int, str, str]:
    return cli_run.run(entry, capsys, *argv)


NO_CUDA = [] if torch.cuda.is_available() else [
    (["--device", "cuda"], "this machine has no CUDA device")]


@pytest.mark.parametrize("argv, expect", [
    (["--models", "resnet5"], "unknown model 'resnet5'"),
    (["--strategies", "tp"], "unknown strategy 'tp'; choose from single, ddp, fsdp2"),
    (["--variants", "fast"], "unknown variant 'fast'"),
    (["--batch-size", "0"], "0 is not a positive number"),
    (["--nproc", "0"], "0 is not a positive number"),
    (["--nodes", "-1"], "-1 is not a positive number"),
    (["--bucket-caps", "0"], "0 MB is not a positive size"),
    (["--bucket-caps", "25,big"], "'big' is not a number"),
    (["--timeout", "soon"], "'soon' is not a number"),
    (["--timeout", "0"], "0 s is not a positive"),
    (["--profile-steps", "-1"], "-1 is not"),
    (["--dtype", "fp16"], "invalid choice: 'fp16'"),
    (["--device", "tpu"], "'tpu'"),
    (["--device", "cuda:1"], "'cuda:1'"),
    (["--inductor-cache", "warm"], "invalid choice: 'warm'"),
    (["--model", "no_such_pkg.mod:f"], "cannot import 'no_such_pkg.mod'"),
    (["--output", "/no/such/dir/r.json", "--device", "cpu"], "does not exist"),
    (["--compare", "/no/such/file.json", "--device", "cpu"], "no such file"),
    (["--append", "--device", "cpu"], "--append needs --output"),
    *NO_CUDA,
])
def test_bad_input_gets_one_line_and_exit_2(capsys, argv, expect):
    cli_run.assert_one_line_error(*run_cli(capsys, *argv), expect)


def test_no_traceback_from_a_real_process():
    proc = subprocess.run([sys.executable, "-m", "snippets.scale", "--strategies", "tp"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    line, = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and line.startswith("python -m snippets.scale: error:")
    assert "unknown strategy 'tp'" in line


@pytest.mark.parametrize("argv, env, expect", [
    (["--strategy", "ddp"], {}, "required: --model"),
    (["--model", MLP, "--strategy", "ddp", "--variant", "eager", "--batch-size", "2",
      "--device", "cpu", "--out", "x"], {}, "torchrun"),
    (["--model", "nope:f", "--strategy", "single", "--variant", "eager", "--batch-size", "2",
      "--device", "cpu", "--out", "OUT"], {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1"},
     "cannot import 'nope'"),
])
def test_a_rank_started_wrongly_says_so_in_one_line(capsys, monkeypatch, tmp_path, argv, env,
                                                    expect):
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    argv = [str(tmp_path) if a == "OUT" else a for a in argv]
    code, out, err = run_cli(capsys, *argv, entry=rank.main)
    assert code == 2 and len(err.strip().splitlines()) == 1 and expect in err, err
    assert "Traceback" not in err + out


def test_help_states_the_defaults_the_code_uses(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    cuda, cpu = scale.DEFAULTS["cuda"], scale.DEFAULTS["cpu"]
    stated = set(re.findall(r"\(default: (\d+) on CUDA, (\d+) on CPU\)", text))
    assert {(str(cuda[k]), str(cpu[k])) for k in ("steps", "batch_size")} <= stated


def test_append_checks_the_file_before_it_runs(cpu_scale_run, tmp_path, capsys):
    out = tmp_path / "scale.json"
    shutil.copy(cpu_scale_run, out)
    code, _, err = run_cli(capsys, "--device", "cpu", "--model", MLP, "--steps", "3",
                           "--rounds", "3", "--inductor-cache", "shared", "--output", str(out),
                           "--append")
    assert code == 2 and all(w in err for w in ("steps", "3 here", "4 in the file"))
    bench = tmp_path / "bench.json"
    bench.write_text(out.read_text().replace("snippets.scale/1", "snippets.bench/1"))
    code, _, err = run_cli(capsys, "--device", "cpu", "--compare", str(bench))
    assert code == 2 and len(err.strip().splitlines()) == 1


def _ctrl_c_reaches_the_child() -> None:
    # A test run started in a shell's background inherits SIGINT ignored, and so would the run
    # it starts: Python then never turns Ctrl-C into KeyboardInterrupt. Restore the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_failing_configuration_is_recorded_the_run_goes_on_and_ctrl_c_stops_it(tmp_path):
    # The first configuration fails on rank 1; the second hangs on rank 1 until Ctrl-C, which
    # must end the run with the first row kept and leave no rank behind.
    out = tmp_path / "scale.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "snippets.scale", "--device", "cpu", "--model", FAILS,
         "--model", HANGS, "--strategies", "ddp", "--variants", "eager", "--steps", "2",
         "--rounds", "1", "--output", str(out), "--format", "json"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=_ctrl_c_reaches_the_child)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and json.loads(out.read_text())["rows"] and _running(HANGS):
                break
            time.sleep(0.2)
        # Its launcher is up; its ranks may still be starting. A Ctrl-C then must leave
        # none of them behind either.
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        stdout, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err, err[-2000:]
    assert "interrupted: 1 finished rows kept" in err
    doc = results.load(out, scale.KIND)
    assert not doc["complete"] and [r["model"] for r in doc["rows"]] == [FAILS]
    failed = doc["rows"][0]
    assert failed["status"] == "error" and failed["step_ms"] is None
    assert failed["message"].startswith("rank 1: RuntimeError") and "planted" in failed["message"]
    assert json.loads(stdout)["rows"] == doc["rows"]  # the table of what was finished
    assert _gone(HANGS)
