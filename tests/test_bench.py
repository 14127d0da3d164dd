"""Tests of snippets.bench and its core: statistics, faults, bad input, files. No timings."""

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

from snippets import bench, measure, results
from snippets.bench_cli import main

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TINY = "snippets.models:tiny_mlp"
# Small and quick: the tiny model on the CPU, few rounds, no untimed rounds.
QUICK = ["--device", "cpu", "--rounds", "3", "--warm-rounds", "0"]


@pytest.fixture(autouse=True)
def _fault_models_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


# --- statistics on known samples -----------------------------------------------------------


def test_quantile_matches_linear_interpolation():
    s = [1.0, 2.0, 3.0, 4.0]
    assert measure.quantile(s, 0.25) == pytest.approx(1.75)
    assert measure.quantile(s, 0.5) == pytest.approx(2.5)
    assert measure.quantile(s, 0.75) == pytest.approx(3.25)


def test_measurement_median_iqr_and_noise_flag():
    m = measure.Measurement((10.0, 10.0, 10.0, 10.0, 12.0))
    assert m.median == 10.0 and m.iqr == 0.0 and not m.noisy
    wide = measure.Measurement((8.0, 9.0, 10.0, 11.0, 12.0))
    assert wide.iqr == pytest.approx(2.0)
    assert wide.iqr_ratio == pytest.approx(0.2) and wide.noisy


def test_speedup_is_ratio_of_medians_with_paired_spread():
    eager = measure.Measurement((4.0, 4.0, 8.0))
    compiled = measure.Measurement((2.0, 2.0, 4.0))
    r = measure.speedup(eager, compiled)
    assert r.value == pytest.approx(2.0)
    assert r.iqr == pytest.approx(0.0)  # every round paired exactly 2x


def test_relative_error_and_calls_per_sample():
    ref = torch.ones(4)
    assert measure.relative_error(ref, ref) == 0.0
    assert measure.relative_error(ref * 1.01, ref) == pytest.approx(0.01)
    assert measure.relative_error(torch.full((4,), float("nan")), ref) == float("inf")
    assert measure.calls_per_sample(0.5, 25.0) == 50
    assert measure.calls_per_sample(100.0, 25.0) == 1


def test_interleaved_keeps_one_sample_per_round_and_drops_warm_rounds():
    order: list[str] = []
    fns = {"a": lambda: order.append("a"), "b": lambda: order.append("b")}
    timed = measure.interleaved(fns, 4, {"a": 1, "b": 1}, torch.device("cpu"), warm_rounds=2)
    assert [len(m.samples) for m in timed.values()] == [4, 4]
    assert order[:4] == ["a", "b", "b", "a"]  # the order rotates each round


def test_config_defaults_resolve_per_device():
    cpu = bench.BenchConfig(device="cpu").resolve()
    assert cpu.batch_sizes == (1,) and cpu.modes == ("eager", "default") and cpu.dtype == "fp32"
    cuda = bench.BenchConfig(device="cuda").resolve()
    assert cuda.batch_sizes == (1, 32) and cuda.dtype == "bf16"
    assert cuda.modes == ("eager", "default", "reduce-overhead")
    assert bench.BenchConfig(device="cpu", modes=("default",)).resolve().modes[0] == "eager"


# --- a real compile, end to end, on the CPU -------------------------------------------------


def test_tiny_end_to_end_compile_writes_a_valid_file(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, stdout, _ = run_cli(capsys, "--model", TINY, *QUICK, "--output", str(out),
                              "--format", "markdown")
    assert code == 0
    doc = results.load(out)
    assert doc["complete"] and doc["provenance"]["device_type"] == "cpu"
    assert doc["provenance"]["cuda"] is None  # a CUDA build of torch on a CPU run names no CUDA
    eager, compiled = doc["rows"]
    assert (eager["mode"], compiled["mode"]) == ("eager", "default")
    assert compiled["status"] in ("ok", "noisy")
    assert compiled["rel_err"] < 1e-4 and compiled["speedup"] > 0
    assert compiled["graph_count"] == 1 and compiled["graph_breaks"] == 0
    assert len(compiled["latency_ms"]["samples"]) == 3
    assert compiled["flops"] == 2 * (64 * 64 + 64 * 10)  # two matmuls, batch 1
    assert "| tiny_mlp" in stdout or "tiny_mlp" in stdout
    assert "CPU:" in stdout  # the stamp says the numbers are CPU numbers


def test_a_compile_fault_is_recorded_and_the_run_goes_on(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, _, _ = run_cli(capsys, "--model", "fault_models:compile_error", "--model",
                         "fault_models:compile_oom", "--model", TINY, *QUICK,
                         "--output", str(out), "--format", "json")
    assert code == 0
    rows = {(r["model"], r["mode"]): r for r in results.load(out)["rows"]}
    err = rows[("fault_models:compile_error", "default")]
    assert err["status"] == "error" and "TorchRuntimeError" in err["message"]
    assert rows[("fault_models:compile_oom", "default")]["status"] == "oom"
    assert rows[("fault_models:compile_error", "eager")]["status"] in ("ok", "noisy")
    assert rows[(TINY, "default")]["status"] in ("ok", "noisy")  # the run went on


def test_an_eager_fault_marks_every_row_of_that_model(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, _, _ = run_cli(capsys, "--model", "fault_models:eager_error", *QUICK,
                         "--output", str(out), "--format", "json")
    assert code == 0
    rows = results.load(out)["rows"]
    assert [r["status"] for r in rows] == ["error", "error"]


# --- results files --------------------------------------------------------------------------


def _doc() -> dict:
    doc = results.new_document(results.provenance(torch.device("cpu"), {"dtype": "fp32"}))
    doc["rows"].append(bench._row("m", 1, "eager", latency_ms={"median": 1.0, "iqr": 0.1,
                                                                "samples": [1.0, 1.1]}))
    return doc


def test_schema_round_trip(tmp_path):
    doc = _doc()
    path = tmp_path / "r.json"
    results.write_atomic(path, doc)
    assert results.load(path) == doc
    assert not list(tmp_path.glob(".r.json.*"))  # no temporary file left behind


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(schema="other/9"), "schema"),
    (lambda d: d["provenance"].pop("torch"), "provenance"),
    (lambda d: d["rows"][0].pop("speedup"), "lacks 'speedup'"),
    (lambda d: d["rows"][0].update(batch_size="1"), "wrong type"),
    (lambda d: d["rows"][0].update(status="great"), "status"),
    (lambda d: d["rows"][0].update(latency_ms={"median": 1.0}), "latency_ms"),
])
def test_validate_names_the_problem(mutate, message):
    doc = _doc()
    mutate(doc)
    with pytest.raises(results.ResultsError, match=message):
        results.validate(doc)


# --- a user's mistakes: one line, exit code 2 ---------------------------------------------


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
    (["--model", "fault_models"], "not of the form pkg.module:factory"),
    (["--model", "fault_models:missing"], "has no callable 'missing'"),
    (["--model", "fault_models:wrong_return", *QUICK], "must return (nn.Module, Tensor)"),
    (["--model", "fault_models:raises", *QUICK], "planted factory failure"),
    (["--output", "/no/such/dir/r.json"], "does not exist"),
    (["--compare", "/no/such/file.json"], "no such file"),
])
def test_bad_input_gets_one_line_and_exit_2(capsys, argv, expect):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and expect in lines[0], err
    assert "Traceback" not in err + out


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
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "python -m snippets.bench: error: argument --models: unknown model 'nope'; choose from "
        "resnet50, transformer, or pass your own with --model pkg.module:factory"]


def test_compare_prints_this_run_beside_the_recorded(tmp_path, capsys):
    old = tmp_path / "old.json"
    assert run_cli(capsys, "--model", TINY, *QUICK, "--modes", "eager", "--output",
                   str(old))[0] == 0
    code, out, _ = run_cli(capsys, "--model", TINY, *QUICK, "--modes", "eager",
                           "--compare", str(old), "--format", "markdown")
    assert code == 0 and "This/recorded" in out and "recorded:" in out


# --- interrupted runs keep every finished row --------------------------------------------


def _start_long_run(out: Path) -> subprocess.Popen:
    # Many batch sizes of the tiny model in eager mode: rows arrive every fraction of a second.
    sizes = ",".join(str(n) for n in range(1, 200))
    return subprocess.Popen(
        [sys.executable, "-m", "snippets.bench", "--model", TINY, "--modes", "eager",
         "--batch-sizes", sizes, *QUICK, "--output", str(out), "--format", "json"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _wait_for_rows(out: Path, proc: subprocess.Popen, n: int = 2) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and len(json.loads(out.read_text())["rows"]) >= n:
            return
        time.sleep(0.1)
    raise AssertionError("no rows appeared")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
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
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and "Traceback" not in err


class _ScriptedGate(measure.HostGate):
    """A gate whose canary readings are given, to test the rule without a noisy host."""

    def __init__(self, readings):
        super().__init__(enabled=True, slowdown=1.5, max_discard=1.0)
        self._readings = iter(readings)

    def canary(self):
        us = next(self._readings)
        self.best_us = min(self.best_us, us)
        self.canary_us.append(us)
        return us


def test_host_gate_remeasures_rounds_timed_in_a_slow_spell():
    # Rounds 1 and 3 run at normal speed, round 2 in a slow spell (canary twice as slow).
    gate = _ScriptedGate([100, 100, 200, 210, 100, 105, 100, 100])
    timed = measure.interleaved({"a": lambda: None}, 3, {"a": 1}, torch.device("cpu"), gate=gate)
    assert len(timed["a"].samples) == 3 and gate.discarded == 1


def test_host_gate_gives_up_when_the_host_stays_slow():
    gate = _ScriptedGate([100, 100] + [300] * 40)
    timed = measure.interleaved({"a": lambda: None}, 3, {"a": 1}, torch.device("cpu"), gate=gate)
    assert len(timed["a"].samples) == 3 and gate.discarded <= 3
