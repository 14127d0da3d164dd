"""Where a training step's time goes, and whether two runs agree: the readings' rules over
made-up rows and a real CPU run, never the timings in them."""

from __future__ import annotations

import json

from snippets.core import results
from snippets.train import evidence
from tests.markdown import table_rows

from .rows import pair, timed


def test_the_host_s_share_of_a_step_is_what_cuda_graphs_take_off_it():
    doc = {"provenance": {"device_type": "cuda"},
           "rows": [timed("m", 32, "model", 12.0), timed("m", 32, "reduce-overhead", 4.0),
                    timed("m", 128, "model", 12.6), timed("m", 128, "reduce-overhead", 11.0),
                    timed("n", 32, "model", 5.0)]}  # no CUDA-graph row: nothing to say
    doc["rows"][0]["profile"] = {"device_type": "cuda", "idle_fraction": 0.6,
                                 "kernels_per_call": 400.0, "top": []}
    lines = evidence.waiting(doc).splitlines()
    assert len(lines) == 2
    assert "(the profiler finds the GPU idle 60% of it, between 400 kernels a step)" in lines[0]
    assert "at least 8.00 ms (67%) of `model`'s step the GPU waits" in lines[0]
    assert "at batch 128, 4 times the samples, `model`'s step takes 1.05 times as long" in lines[0]
    assert "the step is the GPU's work, not the host's" in lines[1]
    doc["rows"][1]["part"] = 1
    assert "timed in different commands" in evidence.waiting(doc).splitlines()[0]


def test_the_peak_goal_reads_the_best_variant_at_the_largest_batch_on_a_gpu_only():
    rows = [timed("resnet50", 32, "model", 10.0, 50.0),
            timed("resnet50", 128, "model", 30.0, 20.0),
            timed("resnet50", 128, "reduce-overhead", 25.0, 30.0),
            timed("transformer", 128, "model", 5.0, 41.0)]
    text = evidence.peak_goal({"provenance": {"device_type": "cuda"}, "rows": rows})
    assert "resnet50 at batch 128, goal 35 % of the measured bf16 peak: missed by 5.0 points" in (
        text) and "`reduce-overhead`, reaches 30.0 %" in text
    assert "transformer at batch 128, goal 40 % of the measured bf16 peak: reached" in text
    rows[2]["profile"] = {"device_type": "cuda", "idle_fraction": 0.25, "kernels_per_call": 900.0,
                          "top": [{"name": "sm90_xmma_fprop", "share": 0.3}]}
    said = ("The profiler: the GPU idle 25% of the step, the longest of its 900 kernels, "
            "`sm90_xmma_fprop`, 30 % of the step")
    text = evidence.peak_goal({"provenance": {"device_type": "cuda"}, "rows": rows})
    assert said in text
    rows[2]["profile"]["by_class"] = {"matmul": 60.0, "triton": 30.0, "layout": 0.0, "other": 10}
    text = evidence.peak_goal({"provenance": {"device_type": "cuda"}, "rows": rows})
    assert "matrix products and convolutions 60% of the kernel time" in text
    assert evidence.peak_goal({"provenance": {"device_type": "cpu"}, "rows": rows}) == ""


def test_two_runs_of_the_same_commands_are_set_side_by_side(cpu_train_run, tmp_path):
    from snippets.site import build, pages

    doc = results.load(cpu_train_run)
    site = build.Build(docs_dir=tmp_path / "docs", cache_dir=tmp_path / "cache")
    folder = site.results_dir / results.run_folder(doc["provenance"])
    folder.mkdir(parents=True)
    (folder / "train.json").write_text(cpu_train_run.read_text())
    missing = pages.repeated("train", evidence.agreement, device="cpu", build=site)
    assert "No recorded run yet" in missing and "second training" in missing
    again = json.loads(cpu_train_run.read_text())
    again["rows"][1]["speedup"] = doc["rows"][1]["speedup"] * 1.2  # `model` 20 % apart
    (folder / "train-repeat.json").write_text(json.dumps(again))
    out = pages.repeated("train", evidence.agreement, device="cpu", build=site)
    compiled = sum(r["variant"] != "eager" for r in doc["rows"])
    assert f"{compiled - 1} of {compiled} compiled speedups agree within 5%; apart: `model` " \
           "(tiny-cnn · 4, +20%)." in out
    assert "recorded, run 1: CPU" in out and "; recorded, run 2: CPU" in out
    assert "What moved" in out and "| tiny-cnn · 4 · model |" in out.split("What moved")[1]
    assert "eager's step moved more than the variant's" in out


def test_what_moved_between_two_runs_is_read_against_each_run_s_own_eager():
    doc = {"rows": pair("reduce-overhead", 20.0, 5.0, 4.0)}
    again = {"rows": pair("reduce-overhead", 25.0, 5.1, 4.9, canary=500.0)}
    text = evidence.moved(doc, again, [("m", 32, "reduce-overhead")])
    assert table_rows(text)[0] == ["m · 32 · reduce-overhead", "20.0 → 25.0", "5.00 → 5.10",
                                   "400 → 500"]
    assert "In 1 of 1, eager's step moved more than the variant's." in text


def test_where_the_time_goes_takes_run_2_s_profile_for_a_row_run_1_did_not_profile():
    doc = {"provenance": {"device_type": "cuda"},
           "rows": [timed("m", 32, "model", 12.0), timed("m", 32, "reduce-overhead", 4.0)]}
    again = json.loads(json.dumps(doc))
    again["rows"][0]["profile"] = {"device_type": "cuda", "idle_fraction": 0.6, "calls": 5,
                                   "kernels_per_call": 400.0, "launches_per_call": 399.0,
                                   "span_us_per_call": 10.0, "busy_us_per_call": 4.0,
                                   "top": [{"name": "Optimizer.step#AdamW.step",
                                            "us_per_call": 1.0, "count_per_call": 1.0,
                                            "share": 0.1}]}
    text = evidence.where(doc, again)
    assert "(run 2's profile finds the GPU idle 60% of it, between 400 kernels" in text
    assert "| m · 32 · model (run 2) |" in text and "5 steps of each variant" in text
    assert "`Optimizer.step#AdamW.step` is not a kernel" in text  # a profile of before the fix
    assert "run 2" not in evidence.where(doc)


def test_an_eager_step_that_keeps_the_gpu_busy_names_its_longest_kernels():
    top = [{"name": n, "share": s, "us_per_call": 1.0, "count_per_call": 1.0} for n, s in
           (("Optimizer.step#AdamW.step", 0.5), ("bn_bw", 0.3), ("nchwToNhwc", 0.1),
            ("gemm", 0.05), ("relu", 0.01))]
    busy = {"device_type": "cuda", "idle_fraction": 0.04, "kernels_per_call": 9.0, "top": top}
    doc = {"rows": [timed("m", 128, "eager", 50.0), timed("m", 32, "eager", 20.0)]}
    seen = {("m", 128, "eager"): (busy, "run 2's profile"),
            ("m", 32, "eager"): ({**busy, "idle_fraction": 0.6}, "run 2's profile")}
    text = evidence.eager_busy(doc, seen)
    assert text == ("- m at batch 128: eager's step keeps the GPU busy 96% of the time (run 2's "
                    "profile); its longest kernels are `bn_bw` (30 %), `nchwToNhwc` (10 %), "
                    "`gemm` (5 %).")  # the annotation is no kernel; batch 32 waits on the host


def test_a_row_measured_again_after_the_second_run_is_marked_later():
    def doc(rows, *dates):
        return {"provenance": {"parts": [{"date": d} for d in dates]}, "rows": rows}

    first = doc([*pair("model", 20.0, 10.0, 2.0), *pair("step", 20.0, 10.0, 2.0, part=1)],
                "2026-01-01T01:00:00+00:00", "2026-01-01T05:00:00+00:00")
    again = doc([*pair("model", 20.0, 10.0, 2.02), *pair("step", 20.0, 10.0, 2.0)],
                "2026-01-01T03:00:00+00:00")
    text = evidence.agreement(first, again)
    assert [r[0] for r in table_rows(text)] == ["m · 32 · model", "m · 32 · step (later)"]
    assert "a command run after run 2 (2026-01-01 05:00 UTC)" in text
    assert "later" not in evidence.agreement(first, {**again, "provenance": {"parts": [
        {"date": "2026-01-01T06:00:00+00:00"}]}})
