"""What max-autotune measured while it chose: a record per tuned operator, from Inductor's own
feedback hook, with the profiler's re-timing where asked for; and a real autotuned rung on the
CPU. No timing is asserted."""

from __future__ import annotations

import contextlib
import math
from types import SimpleNamespace

import pytest
import torch
from torch import nn
from torch._inductor import select_algorithm
from torch._inductor.select_algorithm import ExternKernelCaller

from snippets.speed import autotune, ladder


def _library(name: str) -> ExternKernelCaller:
    choice = ExternKernelCaller.__new__(ExternKernelCaller)  # its kind, not a real kernel
    choice.name = name
    return choice


def _node(*size: int) -> SimpleNamespace:
    return SimpleNamespace(get_size=lambda: list(size))


class Template:  # a generated candidate, as the hook sees it: a name (and hashable)
    def __init__(self, name: str) -> None:
        self.name = name


LIB, FAST, BROKEN = _library("addmm"), Template("triton_mm_1"), Template("triton_mm_2")
TIMINGS = {LIB: 0.027, FAST: 0.009, BROKEN: math.inf}


def test_a_record_names_the_choice_and_the_fastest_of_each_kind():
    rec = autotune.summarize_op("addmm", [[128, 512]], {
        "addmm": ("library", 0.027), "triton_mm_1": ("template", 0.009),
        "triton_mm_2": ("template", math.inf)}, {"addmm": 0.004})
    assert rec["candidates"] == 3 and rec["chosen"] == "template"
    assert rec["library"] == {"name": "addmm", "ms": 0.027, "kernel_ms": 0.004}
    assert rec["template"] == {"name": "triton_mm_1", "ms": 0.009, "kernel_ms": None}


def _hook() -> object:
    return autotune._savers(select_algorithm)[-1]


def test_the_hook_records_each_tuned_operator_and_is_removed_after():
    before = list(autotune._savers(select_algorithm))
    asked = []

    def profiled(choices_override=None):  # Inductor's re-timing: the profiler's kernel time
        asked.append({c.name for c in choices_override})
        return {c: t / 5 for c, t in TIMINGS.items() if c in choices_override}

    with autotune.recording(retime=True) as ops:
        _hook()(TIMINGS, "addmm", [_node(128, 512), _node(512, 2048)], list(TIMINGS), profiled)
    assert autotune._savers(select_algorithm) == before
    assert asked == [{"addmm", "triton_mm_1"}]  # the two reported, not every candidate
    (rec,) = ops
    assert rec["sizes"] == [[128, 512], [512, 2048]] and rec["chosen"] == "template"
    assert math.isclose(rec["library"]["kernel_ms"], 0.027 / 5)
    assert rec["retimed_by"] == "profiler"


def test_re_timing_reads_a_library_call_from_the_profiler_too(monkeypatch):
    # Inductor re-times a library call that writes into out= with its own timer, not the
    # profiler: while it re-times, that timer must be the profiler's.
    from torch._inductor import utils
    from torch._inductor.runtime import benchmarking
    timer = benchmarking.benchmarker
    monkeypatch.setattr(timer, "benchmark_gpu", lambda fn, **kw: 1.0)  # the event timer
    monkeypatch.setattr(utils, "do_bench_using_profiling", lambda fn: 0.004)
    stub = timer.benchmark_gpu

    def profiled(choices_override=None):  # as Inductor does: the library call via the timer
        return {c: (timer.benchmark_gpu(lambda: None, rep=100) if c is LIB else 0.008)
                for c in choices_override}

    with autotune.recording(retime=True) as ops:
        _hook()(TIMINGS, "addmm", [], list(TIMINGS), profiled)
    assert ops[0]["library"]["kernel_ms"] == 0.004 and ops[0]["template"]["kernel_ms"] == 0.008
    assert timer.benchmark_gpu is stub  # the timer as it was found


def test_an_older_hook_re_times_every_candidate_and_a_failed_re_timing_keeps_the_record():
    def every():  # an Inductor whose re-timing takes no list
        return {c: t / 5 for c, t in TIMINGS.items()}

    def broken(choices_override=None):
        raise RuntimeError("profiler busy")

    with autotune.recording(retime=True) as ops:
        _hook()(TIMINGS, "addmm", [], list(TIMINGS), every)
        _hook()(TIMINGS, "mm", [], list(TIMINGS), broken)
        _hook()({object(): 1.0}, "conv", [], [], every)  # a candidate without a name
    assert ops[0]["template"]["kernel_ms"] == 0.009 / 5
    assert ops[1]["retime_error"] == "RuntimeError: profiler busy"
    assert ops[1]["library"]["kernel_ms"] is None and "retimed_by" not in ops[1]
    assert ops[2]["op"] == "conv" and ops[2]["error"].startswith("AttributeError")


def test_without_re_timing_the_profiler_is_not_asked():
    def never(*_):
        raise AssertionError("re-timed")

    with autotune.recording(retime=False) as ops:
        _hook()(TIMINGS, "addmm", [], list(TIMINGS), never)
    assert ops[0]["library"]["kernel_ms"] is None and "retime_error" not in ops[0]


def test_an_autotuned_rung_on_a_cpu_keeps_its_records():
    # With the weights frozen, Inductor's CPU backend can autotune a linear layer between
    # oneDNN/MKL and its own C++ template, where the CPU supports that template; elsewhere it
    # has one candidate and tunes nothing, and the record is an empty list.
    def mlp(batch_size):
        return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 8)), torch.randn(
            batch_size, 64)

    before = list(autotune._savers(select_algorithm))
    with torch.no_grad():
        rows = list(ladder.climb("mlp", mlp, 2, device=torch.device("cpu"), dtype=torch.float32,
                                 autotune=True, rounds=2, warm_rounds=0, sample_ms=0.01,
                                 warmup=1, tolerance=1e-3, only=("freezing", "max-autotune")))
    assert [r["mode"] for r in rows] == ["eager", "+ freezing", "+ max-autotune"]
    assert "autotune" not in rows[1] and isinstance(rows[2]["autotune"], list)
    for rec in rows[2]["autotune"]:
        assert rec["candidates"] >= 2 and rec["chosen"] in ("library", "template")
    assert autotune._savers(select_algorithm) == before


def test_graph_timing_times_each_candidate_s_replay_and_falls_back_where_capture_fails(
        monkeypatch):
    from torch._inductor.runtime import benchmarking
    timer = benchmarking.benchmarker
    timed = []
    monkeypatch.setattr(timer, "benchmark_gpu", lambda fn, **kw: timed.append((fn, kw)) or 1.0)
    stub = timer.benchmark_gpu

    def ok():
        pass

    def bad():
        pass

    def replay():
        pass

    refused = "operation not permitted when stream is capturing"  # as CUDA says it

    def capture(fn):  # a CUDA graph's replay for one candidate; the other cannot be captured
        if fn is bad:
            raise RuntimeError(refused)
        return replay

    with autotune.graph_timed(capture) as failed:
        assert timer.benchmark_gpu(ok, rep=10) == 1.0 and timer.benchmark_gpu(bad) == 1.0
    assert timed == [(replay, {"rep": 10}), (bad, {})]  # Inductor's own timer, either way
    assert failed == [f"RuntimeError: {refused}"]  # the exception's type, then what it said
    assert timer.benchmark_gpu is stub


def test_a_candidate_that_cannot_run_at_all_is_not_counted_as_uncaptured(monkeypatch):
    from torch._inductor.runtime import benchmarking

    def broken(fn, **kw):  # a template whose configs need more shared memory than there is
        raise RuntimeError("No valid triton configs")

    def capture(fn):
        raise RuntimeError("No valid triton configs")

    monkeypatch.setattr(benchmarking.benchmarker, "benchmark_gpu", broken)
    with autotune.graph_timed(capture) as failed:
        with pytest.raises(RuntimeError):  # Inductor times it as infinity, as without us
            benchmarking.benchmarker.benchmark_gpu(lambda: None)
    assert failed == []


def test_graph_timing_leaves_inductor_s_timer_as_it_found_it():
    from torch._inductor.runtime import benchmarking
    timer = benchmarking.benchmarker
    assert "benchmark_gpu" not in vars(timer)
    with autotune.graph_timed():
        assert "benchmark_gpu" in vars(timer)
    assert "benchmark_gpu" not in vars(timer)


@pytest.mark.gpu
def test_on_a_gpu_both_kinds_are_re_timed_by_the_profiler_and_replays_are_timed():
    # A real autotuned linear layer: Inductor's hook fires, the library call's second reading
    # comes from the profiler (the timer swapped for it), and as graph replays every candidate
    # that runs is captured.
    import torch._dynamo
    from torch._inductor import utils

    # An empty cache, so that the second compile tunes again. force_disable_caches would do it
    # too, but its warning ("dynamo_pgo force disabled") failed this test on an H200 under torch
    # 2.11, raised from inside Dynamo.
    fresh = getattr(utils, "fresh_cache", None) or utils.fresh_inductor_cache

    def tuned(graph_timed: bool) -> tuple[list, list]:
        torch._dynamo.reset()
        layer = nn.Linear(512, 1024).cuda().half()
        x = torch.randn(64, 512, device="cuda", dtype=torch.half)
        with torch.no_grad(), fresh(), \
                autotune.recording(retime=True) as ops, \
                (autotune.graph_timed() if graph_timed else contextlib.nullcontext([])) as lost:
            torch.compile(layer, mode="max-autotune-no-cudagraphs")(x)
        return ops, lost

    for graph_timed in (False, True):
        ops, lost = tuned(graph_timed)
        assert ops and all(o.get("retimed_by") == "profiler" for o in ops), [
            o.get("retime_error") for o in ops]
        for o in ops:
            assert 0 < o["library"]["kernel_ms"] < math.inf
            assert 0 < o["template"]["kernel_ms"] < math.inf
        assert all(msg.split(":")[0].endswith("Error") for msg in lost)  # what failed, kept
