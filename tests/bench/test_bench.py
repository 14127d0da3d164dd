"""snippets.bench: its defaults, a real compile end to end on the CPU, faults kept in their rows."""

from __future__ import annotations

import pytest
import torch

from snippets import bench
from snippets.core import backends, results
from tests import markdown

from .test_cli import FAULTS, QUICK, TINY, run_cli


def test_config_defaults_resolve_per_device():
    cpu = bench.BenchConfig(device="cpu").resolve()
    assert cpu.batch_sizes == (1,) and cpu.modes == ("eager", "default") and cpu.dtype == "fp32"
    cuda = bench.BenchConfig(device="cuda").resolve()
    assert cuda.batch_sizes == (1, 32) and cuda.dtype == "bf16"
    assert cuda.modes == ("eager", "default", "reduce-overhead")
    assert bench.BenchConfig(device="cpu", modes=("default",)).resolve().modes[0] == "eager"
    assert cuda.backends == backends.DEFAULT["cuda"] and cpu.backends == backends.DEFAULT["cpu"]
    assert bench.BenchConfig(device="cpu", rounds=7).resolve().rounds == 7  # given wins


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
    assert compiled["rel_err"] < 1e-4
    assert compiled["speedup"] == pytest.approx(
        eager["latency_ms"]["median"] / compiled["latency_ms"]["median"])
    assert compiled["graph_count"] == 1 and compiled["graph_breaks"] == 0
    assert len(compiled["latency_ms"]["samples"]) == 3
    assert compiled["flops"] == 2 * (64 * 64 + 64 * 10)  # two matmuls, batch 1
    assert [TINY, "1", "default"] in [cells[:3] for cells in markdown.all_rows(stdout)]
    assert "this run: CPU: " in stdout  # the stamp says the numbers are CPU numbers
    settings = doc["provenance"]["settings"]
    assert settings["backends"] == backends.DEFAULT["cpu"].as_dict() and settings["tf32"] is False


def test_a_compile_fault_is_recorded_and_the_run_goes_on(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, _, _ = run_cli(capsys, "--model", f"{FAULTS}:compile_error", "--model",
                         f"{FAULTS}:compile_oom", "--model", TINY, *QUICK,
                         "--output", str(out), "--format", "json")
    assert code == 0
    rows = {(r["model"], r["mode"]): r for r in results.load(out)["rows"]}
    err = rows[(f"{FAULTS}:compile_error", "default")]
    assert err["status"] == "error" and "TorchRuntimeError" in err["message"]
    assert rows[(f"{FAULTS}:compile_oom", "default")]["status"] == "oom"
    assert rows[(f"{FAULTS}:compile_error", "eager")]["status"] in ("ok", "noisy")
    assert rows[(TINY, "default")]["status"] in ("ok", "noisy")  # the run went on


def test_an_eager_fault_marks_every_row_of_that_model(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, _, _ = run_cli(capsys, "--model", f"{FAULTS}:eager_error", *QUICK,
                         "--output", str(out), "--format", "json")
    assert code == 0
    rows = results.load(out)["rows"]
    assert [r["status"] for r in rows] == ["error", "error"]


def test_a_run_restores_the_backend_settings_it_changed():
    before = (torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark)
    cfg = bench.BenchConfig(device="cpu", models=(), factories=(("tiny", _tiny),), modes=("eager",),
                            rounds=1, warm_rounds=0, sample_ms=0.01,
                            backends=backends.BackendSettings(matmul_precision="high",
                                                              cudnn_benchmark=True))
    seen = []
    doc = bench.document(cfg, on_row=lambda d: seen.append(torch.get_float32_matmul_precision()))
    assert seen == ["high"]  # set while the rows were measured
    assert (torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark) == before
    assert doc["provenance"]["settings"]["backends"]["matmul_precision"] == "high"
    assert doc["provenance"]["settings"]["tf32"] is True


def _tiny(batch_size):
    from snippets.core import models

    return models.tiny_mlp(batch_size)


@pytest.mark.gpu
def test_a_cuda_run_records_the_gpu_and_every_fast_mode():
    before = (torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark)
    cfg = bench.BenchConfig(device="cuda", models=(), factories=(("tiny", _tiny),),
                            batch_sizes=(1, 8), rounds=3, warm_rounds=0)
    doc = bench.document(cfg)
    assert results.validate(doc, kind="bench") and doc["complete"]
    prov = doc["provenance"]
    assert prov["device_type"] == "cuda" and prov["cuda"] and prov["driver"]
    assert prov["device_index"] == torch.cuda.current_device() and prov["peak_bf16_tflops"] > 0
    assert prov["settings"]["backends"] == backends.DEFAULT["cuda"].as_dict()
    faults = [(r["batch_size"], r["mode"], r["message"]) for r in doc["rows"]
              if r["status"] not in ("ok", "noisy")]
    assert faults == []
    assert [(r["batch_size"], r["mode"]) for r in doc["rows"]] == [
        (bs, m) for bs in (1, 8) for m in bench.FAST_MODES]
    for row in doc["rows"]:
        assert row["status"] in ("ok", "noisy"), row["message"]
        assert row["rel_err"] <= bench.TOLERANCE["bf16"] and row["peak_mem_mb"] > 0
        assert row["sm_clock_mhz"] is None or row["sm_clock_mhz"]["min"] > 0
    assert (torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark) == before


def test_graph_variants_on_a_cpu_are_rows_that_say_why():
    cfg = bench.BenchConfig(device="cpu", models=(), factories=(("tiny", _tiny),),
                            modes=("eager", *bench.GRAPH_VARIANTS), rounds=2, warm_rounds=0,
                            sample_ms=0.01)
    doc = bench.document(cfg)
    by = {r["mode"]: r for r in doc["rows"]}
    assert by["eager"]["status"] in ("ok", "noisy")
    for variant in bench.GRAPH_VARIANTS:
        assert by[variant]["status"] == "unsupported" and "CUDA" in by[variant]["message"]


@pytest.mark.gpu
def test_graph_variants_on_a_gpu_capture_and_match_eager():
    """The eager model captured by hand and the cudagraphs backend, beside reduce-overhead."""
    cfg = bench.BenchConfig(device="cuda", models=(), factories=(("tiny", _tiny),),
                            batch_sizes=(4,), modes=("eager", "reduce-overhead",
                                                     *bench.GRAPH_VARIANTS),
                            rounds=3, warm_rounds=0)
    doc = bench.document(cfg)
    by = {r["mode"]: r for r in doc["rows"]}
    for variant in bench.GRAPH_VARIANTS:
        assert by[variant]["status"] in ("ok", "noisy"), by[variant]["message"]
        assert by[variant]["rel_err"] <= bench.TOLERANCE["bf16"]
    assert by["eager-graphed"]["graphs_compiled"] == 0  # nothing was compiled


def test_crosscheck_times_every_variant_with_two_independent_timers(monkeypatch):
    from snippets.bench import crosscheck, crosscheck_findings, crosscheck_tables

    monkeypatch.setattr(crosscheck, "MIN_RUN_S", 0.01)  # counts, not timings, are asserted
    cfg = bench.BenchConfig(device="cpu", models=(), factories=(("tiny", _tiny),),
                            modes=("eager",), rounds=2, warm_rounds=0, sample_ms=0.01,
                            crosscheck=True)
    doc = bench.document(cfg)
    (row,) = doc["rows"]
    assert doc["provenance"]["settings"]["crosscheck"] is True
    assert len(row["crosscheck"]["wall_ms"]["samples"]) == crosscheck.WALL_REPEATS
    assert row["crosscheck"]["timer_ms"]["samples"]
    assert row["crosscheck"]["harness_threads"] == torch.get_num_threads()
    assert len(row["crosscheck"]["timer_harness_threads_ms"]["samples"]) == crosscheck.WALL_REPEATS
    assert all(r > 0 for r in crosscheck.ratios(row))
    assert markdown.row(crosscheck_tables.crosscheck(doc), "tiny", 1, "eager") is not None
    assert "Timer, + threads" in crosscheck_tables.crosscheck(doc)
    found = crosscheck_findings.of(doc)
    assert found.graphs is None and found.others.rows == 1  # a CPU's run: no CUDA graph
    assert found.others.threads is not None and found.others.held is not None
