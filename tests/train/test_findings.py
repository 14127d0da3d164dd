"""What a training run says, as data: the findings' values and verdicts over made-up rows (only
the fields a reading uses) and a real CPU run, never the timings in them."""

from __future__ import annotations

import pytest

from snippets.core import results
from snippets.core.findings import Span
from snippets.train import findings, repeat, where
from snippets.train.findings import Winner
from snippets.train.where import Pace, Source

from .rows import pair, timed


def test_the_host_s_share_of_a_step_is_what_cuda_graphs_take_off_it():
    doc = {"provenance": {"device_type": "cuda"},
           "rows": [timed("m", 32, "model", 12.0), timed("m", 32, "reduce-overhead", 4.0),
                    timed("m", 128, "model", 12.6), timed("m", 128, "reduce-overhead", 11.0),
                    timed("n", 32, "model", 5.0)]}  # no CUDA-graph row: nothing to say
    doc["rows"][0]["profile"] = {"device_type": "cuda", "idle_fraction": 0.6,
                                 "kernels_per_call": 400.0, "top": []}
    host, gpu = where.waiting(doc)
    assert (host.model, host.batch, host.pace) == ("m", 32, Pace.HOST)
    assert host.waits_ms == pytest.approx(8.0) and host.waits_share == pytest.approx(2 / 3)
    assert host.idle == where.Idle(Source.RUN_1, 0.6, 400.0, None)
    assert host.larger == where.Larger(128, 4.0, pytest.approx(1.05))
    assert (gpu.batch, gpu.pace, gpu.step_ms, gpu.replayed_ms) == (128, Pace.GPU, 12.6, 11.0)
    doc["rows"][1]["part"] = 1  # timed in another command: not set against each other
    assert where.waiting(doc)[0] == where.Waiting("m", 32, Pace.APART)


def test_the_peak_goal_reads_the_best_variant_at_the_largest_batch_on_a_gpu_only():
    rows = [timed("resnet50", 32, "model", 10.0, 50.0),
            timed("resnet50", 128, "model", 30.0, 20.0),
            timed("resnet50", 128, "reduce-overhead", 25.0, 30.0),
            timed("transformer", 128, "model", 5.0, 41.0)]
    # A peak of 100 TFLOP/s: each row's TFLOP/s is its share in %.
    doc = {"provenance": {"device_type": "cuda", "peak_bf16_tflops": 100.0}, "rows": rows}
    resnet, transformer = where.goals(doc)
    assert (resnet.batch, resnet.variant, resnet.pct, resnet.reached) == (
        128, "reduce-overhead", 30.0, False)
    assert resnet.missed_by == pytest.approx(5.0) and resnet.short is None  # no profile
    assert transformer.reached and transformer.goal == 40.0 and transformer.short is None
    rows[2]["profile"] = {"device_type": "cuda", "idle_fraction": 0.25, "kernels_per_call": 900.0,
                          "top": [{"name": "sm90_xmma_fprop", "share": 0.3}],
                          "annotations": []}
    short = where.goals(doc)[0].short
    assert short == where.Short(Source.RUN_1, 0.25, None, 900.0,
                                   where.Kernel("sm90_xmma_fprop", 0.3))
    rows[2]["profile"]["by_class"] = {"matmul": 60.0, "triton": 30.0, "layout": 0.0, "other": 10}
    assert where.goals(doc)[0].short.matmul == pytest.approx(0.6)
    assert where.goals({"provenance": {"device_type": "cpu"}, "rows": rows}) == ()


def test_run_2_s_profile_stands_in_for_a_row_run_1_did_not_profile():
    doc = {"provenance": {"device_type": "cuda"},
           "rows": [timed("m", 32, "model", 12.0), timed("m", 32, "reduce-overhead", 4.0)]}
    again = {"provenance": {"device_type": "cuda"},
             "rows": [{**timed("m", 32, "model", 12.0), "profile": {
                 "device_type": "cuda", "idle_fraction": 0.6, "kernels_per_call": 400.0}},
                 timed("m", 32, "reduce-overhead", 4.0)]}
    assert where.waiting(doc, where.profiles_seen(doc, again))[0].idle.source is \
        Source.RUN_2
    assert where.waiting(doc)[0].idle is None


def test_an_eager_step_that_keeps_the_gpu_busy_names_its_longest_kernels():
    top = [{"name": n, "share": s, "us_per_call": 1.0, "count_per_call": 1.0} for n, s in
           (("Optimizer.step#AdamW.step", 0.5), ("bn_bw", 0.3), ("nchwToNhwc", 0.1),
            ("gemm", 0.05), ("relu", 0.01))]
    busy = {"device_type": "cuda", "idle_fraction": 0.04, "kernels_per_call": 9.0, "top": top,
            "annotations": ["Optimizer.step#AdamW.step"]}
    doc = {"rows": [timed("m", 128, "eager", 50.0), timed("m", 32, "eager", 20.0)]}
    seen = {("m", 128, "eager"): (busy, Source.RUN_2),
            ("m", 32, "eager"): ({**busy, "idle_fraction": 0.6}, Source.RUN_2)}
    (only,) = where.busy(doc, seen)  # batch 32 waits on the host
    assert (only.batch, only.source, only.busy) == (128, Source.RUN_2, pytest.approx(0.96))
    # The annotation is no kernel.
    assert [k.name for k in only.longest] == ["bn_bw", "nchwToNhwc", "gemm"]


def test_the_fastest_variant_and_when_it_pays():
    rows = [*pair("model", 16.0, 8.0, 2.0), pair("step", 16.0, 4.0, 4.0)[1]]
    for r in rows:
        r["compile_s"] = 1.0
    rows[2]["compile_s"] = 3.0
    (pick,) = findings.picks({"rows": rows})
    assert (pick.winner, pick.variant, pick.speedup, pick.rival) == (
        Winner.COMPILED, "step", 4.0, None)
    # 2 s more first-step time, at 12 ms saved a step (4 ms at 4x): 167 steps.
    assert pick.pays_after == pytest.approx(2000 / 12)
    slow = [*pair("model", 4.0, 8.0, 0.5), {**timed("m", 32, "step", 2.0), "status": "mismatch"}]
    assert findings.picks({"rows": slow})[0] == findings.Pick(
        "m", 32, Winner.EAGER, faster_but_wrong=("step",))
    nothing = [{**r, "status": "error"} for r in slow]
    assert findings.picks({"rows": nothing})[0].winner is Winner.NOTHING_TIMED


def test_another_command_s_row_with_the_larger_speedup_is_its_rival():
    # max-autotune's step is shorter, but its command's eager was faster, so its speedup reads
    # lower than reduce-overhead's: across hosts apart, which is faster stays open.
    rows = [*pair("reduce-overhead", 16.0, 4.0, 4.0, canary=400.0),
            *pair("max-autotune", 11.0, 3.0, 3.7, part=1, canary=250.0)]
    for r in rows:
        r["compile_s"] = 1.0
    (pick,) = findings.picks({"rows": rows})
    assert (pick.variant, pick.speedup) == ("max-autotune", 3.7)
    assert pick.rival == findings.Rival("reduce-overhead", 4.0, pytest.approx(0.6))


def test_the_rows_statuses_and_what_the_file_says_of_the_noise():
    def row(status, steal):
        return {"status": status, "step_ms": {"median": 10.0, "iqr": 1.5},
                "cpu_steal_pct": steal}

    got = findings.counts({"rows": [row("noisy", 0.0), row("ok", 9.0), row("mismatch", None),
                                    row("error", None)]})
    assert got == findings.Counts(4, 1, 1, 1, Span(0.15, 0.15), 0.0)
    assert findings.counts({"rows": [row("noisy", None)]}).steal_max is None


def test_rows_whose_own_eager_row_the_file_does_not_hold():
    rows = [*pair("model", 20.0, 10.0, 2.0), *pair("max-autotune-no-cudagraphs", 30.0, 12.0,
                                                     2.5, part=1)]
    assert findings.unpaired({"rows": rows}) == ()
    legacy = {"rows": [rows[0], rows[1], rows[3]]}  # the second eager row not kept
    assert findings.unpaired(legacy) == (("m", 32, "max-autotune-no-cudagraphs"),)
    # the agreement table follows the results table: no speedup against rounds it does not show
    got = repeat.agreement({"provenance": {}, **legacy}, {"provenance": {}, "rows": rows})
    assert [p.key for p in got.pairs] == [("m", 32, "model")]


def test_two_runs_agree_or_not_and_what_moved():
    doc = {"provenance": {}, "rows": pair("reduce-overhead", 20.0, 5.0, 4.0)}
    again = {"provenance": {}, "rows": pair("reduce-overhead", 25.0, 5.1, 4.9, canary=500.0)}
    got = repeat.agreement(doc, again)
    assert (got.both, got.agree, got.later_dates) == (1, 0, ())
    assert [p.key for p in got.apart] == [("m", 32, "reduce-overhead")]
    assert got.apart[0].apart == pytest.approx(0.225)
    (moved,) = got.moved
    assert moved.eager_ms == (20.0, 25.0) and moved.variant_ms == (5.0, 5.1)
    assert moved.canary_us == (400.0, 500.0) and got.eager_moved_more == got.moved_count == 1
    close = {"provenance": {}, "rows": pair("reduce-overhead", 20.0, 5.0, 4.1)}
    assert repeat.agreement(doc, close).agree == 1 and not repeat.agreement(doc, close).moved


def test_a_row_measured_again_after_the_second_run_is_marked_later():
    def doc(rows, *dates):
        return {"provenance": {"parts": [{"date": d} for d in dates]}, "rows": rows}

    first = doc([*pair("model", 20.0, 10.0, 2.0), *pair("step", 20.0, 10.0, 2.0, part=1)],
                "2026-01-01T01:00:00+00:00", "2026-01-01T05:00:00+00:00")
    again = doc([*pair("model", 20.0, 10.0, 2.02), *pair("step", 20.0, 10.0, 2.0)],
                "2026-01-01T03:00:00+00:00")
    got = repeat.agreement(first, again)
    assert [(p.key[2], p.later) for p in got.pairs] == [("model", False), ("step", True)]
    assert got.later_dates == ("2026-01-01 05:00",)
    assert repeat.agreement(first, {**again, "provenance": {"parts": [
        {"date": "2026-01-01T06:00:00+00:00"}]}}).later_dates == ()


def test_the_findings_of_a_real_cpu_run(cpu_train_run):
    doc = results.load(cpu_train_run)
    got = findings.of(doc)
    assert got.device_type == "cpu" and got.agreement is None
    assert [(p.model, p.batch) for p in got.picks] == [("tiny-cnn", 4)]
    assert got.counts.rows == len(doc["rows"]) and got.counts.mismatched == 0
    assert got.learning == findings.Learning(5, doc["provenance"]["settings"]["tolerance"], ())
    assert not got.memory_measured and got.goals == () and got.busy == ()


def test_the_names_and_shares_the_page_places():
    learned = findings.Learning(5, 0.05, (findings.Drift("m", 32, "step"),))
    assert learned.tolerance_pct == pytest.approx(5.0) and learned.drifted_names == (
        "m · 32 · step",)
    assert findings.Learning(5, None, ()).tolerance_pct is None
    slow = [*pair("model", 4.0, 8.0, 0.5), {**timed("m", 32, "step", 2.0), "status": "mismatch"}]
    doc = {"provenance": {"settings": {}}, "rows": slow}
    assert findings.of(doc).faster_but_wrong == ("m · 32 · step",)
