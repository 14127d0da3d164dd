"""The training page's tables and verdicts, over a real CPU run: their shape and their rules,
never the timings in them."""

from __future__ import annotations

import json

import pytest

from snippets.core import measure, results
from snippets.train import aot, claims, compare, tables
from tests.markdown import table_rows

from .conftest import QUICK
from .test_cli import run_cli


def test_the_page_table_has_a_row_per_variant_and_every_column_in_its_block(cpu_train_run):
    doc = results.load(cpu_train_run)
    text = tables.report(doc)
    rows = table_rows(text)
    assert [r[0] for r in rows] == [f"tiny-cnn · 4 · {r['variant']}" for r in doc["rows"]]
    assert "<details" in text and all(c in text for c in tables.COLUMNS)
    assert "Which variant pays, computed from the table:" in text
    block = text.split("Where each step's time goes (torch.profiler, 2 steps")[1]
    assert all(f"| tiny-cnn · 4 · {r['variant']} |" in block for r in doc["rows"])
    assert ", the fastest profiled**" in block and "Top-level ops / step" in block  # a CPU's
    assert "What each step's kernel time is spent on" not in block  # no split on a CPU


def test_the_loss_table_samples_each_curve(cpu_train_run):
    doc = results.load(cpu_train_run)
    text = tables.losses(doc)
    head = text.splitlines()[0]
    assert "Step 1 |" in head and "Step 5 |" in head  # the first and the last step
    eager = table_rows(text)[0]
    assert eager[1] == f"{doc['rows'][0]['losses'][0]:.4g}"
    assert "every compiled variant stays within 0.1 % of eager's first loss" in text


def test_break_even_steps():
    eager = {"step_ms": {"median": 3.0}, "compile_s": 0.5}
    row = {"step_ms": {"median": 1.0}, "compile_s": 2.5}
    assert tables.break_even_steps(row, eager) == pytest.approx(1000)  # 2 s over 2 ms a step
    assert tables.break_even_steps({**row, "step_ms": {"median": 4.0}}, eager) is None


def test_memory_says_when_none_was_measured(cpu_train_run):
    assert "measured no memory" in tables.memory(results.load(cpu_train_run))


R = measure.Ratio


@pytest.mark.parametrize(("opt", "whole", "share", "expect"), [
    (R(1.0, 0.1), R(1.0, 0.1), 0.0, "holds: the whole step is no faster"),
    (R(1.2, 0.1), R(1.2, 0.1), 0.15, "holds by its exception: the whole step is faster, and "
                                     "the optimizer is a hot spot"),
    # Measurably faster, but saving less than the mark: no hot spot, so the whole step's win
    # contradicts the advice.
    (R(1.2, 0.1), R(1.3, 0.1), 0.05, "does not hold"),
    (R(1.0, 0.1), R(1.3, 0.1), 0.0, "does not hold"),
    (R(1.0, 0.1), R(1.04, 0.1), 0.0, "holds: the whole step is no faster"),  # within its spread
    (None, R(1.3, 0.1), 0.1, "no verdict"),
])
def test_optimizer_verdict(opt, whole, share, expect):
    assert claims.optimizer_verdict(opt, whole, share).startswith(expect)


def test_the_hot_spot_share_is_what_compiling_the_optimizer_saves_of_eager():
    rows = {("m", 1, v): {"step_ms": {"median": ms}}
            for v, ms in (("eager", 10.0), ("model", 8.0), ("model+optimizer", 6.5))}
    assert claims.hot_share(rows, "m", 1) == pytest.approx(0.15)
    assert claims.hot_share({}, "m", 1) is None


def test_a_noisy_row_says_its_iqr_in_the_key_table():
    row = {"status": "noisy", "step_ms": {"median": 10.0, "iqr": 1.5}}
    assert tables.key_status(row) == "noisy: IQR 15%"
    assert tables.key_status({"status": "ok", "step_ms": {}}) == "ok"


def test_eager_first_steps_keep_their_milliseconds():
    assert tables.first_steps(0.017) == "0.017" and tables.first_steps(7.71) == "7.7"


def test_verdicts_over_a_real_run(cpu_train_run):
    text = claims.verdicts(results.load(cpu_train_run))
    rows = table_rows(text)
    assert rows[0][0] == "tiny-cnn · 4"
    assert rows[0][3].startswith(("holds", "does not hold"))
    # No autotuned variant in a CPU run: its claim says so instead of guessing.
    assert "not measured" in text.split("max-autotune")[-1]


def test_what_aot_autograd_traced():
    value = aot.traced()
    seen = {v["variant"]: v for v in value}
    model, step = seen["model"], seen["step"]
    assert [g["kind"] for g in model["graphs"]] == ["forward", "backward"]
    assert not any(g["loss"] for g in model["graphs"]) and model["breaks"] == 0
    assert [g["kind"] for g in step["graphs"][:2]] == ["forward", "backward"]
    assert step["graphs"][0]["loss"] and step["graphs"][1]["loss"]
    assert any("backward" in r for r in step["reasons"])
    text = claims.aot_report(value)
    assert "Verdict: holds for the backward, and for the loss only when" in text


def test_a_variant_that_learns_differently_is_marked(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, _, _ = run_cli(capsys, "--model", "tests.train.faults:learns_differently",
                         "--variants", "model", *QUICK, "--output", str(out), "--format", "json")
    assert code == 0
    doc = results.load(out)
    row = doc["rows"][1]
    assert row["status"] == "mismatch" and "does not learn the same" in row["message"]
    assert row["loss_gap"] > 1e-3 and row["step_ms"]  # timed all the same, and its speedup marked
    assert tables.speed(row).endswith(", invalid") and "drift past" in tables.losses(doc)


def test_compare_names_the_settings_that_differ(cpu_train_run):
    doc = results.load(cpu_train_run)
    other = {**doc, "provenance": {**doc["provenance"], "settings": {
        **doc["provenance"]["settings"], "dtype": "bf16 autocast"}}}
    assert compare.compare_title(doc, doc).endswith("same settings")
    assert "dtype: fp32 here, bf16 autocast recorded" in compare.compare_title(doc, other)
    assert len(compare.compare_rows(doc, other)) == len(doc["rows"])


def test_the_loss_plot_draws_one_figure_per_model_with_its_text(cpu_train_run):
    from snippets.train import plots

    doc = results.load(cpu_train_run)
    html = plots.losses(doc)
    assert html.count("<figure") == len({r["model"] for r in doc["rows"]}) == 1
    assert 'role="img" aria-label="Loss per step of tiny-cnn at batch 4' in html
    drifted = {**doc, "rows": [{**r, "status": "mismatch"} if r["variant"] == "step" else r
                               for r in doc["rows"]]}
    # The legend's glyphs are drawn as paths; the text alternative names the drifted variant.
    assert "Drifted" not in html and "Drifted past the tolerance: step at batch 4" in \
        plots.losses(drifted)


def test_the_noisy_rows_get_what_the_file_says_of_their_cause():
    def row(status, steal):
        return {"status": status, "step_ms": {"median": 10.0, "iqr": 1.5},
                "cpu_steal_pct": steal}

    text = tables.noise_evidence({"rows": [row("noisy", 0.0), row("ok", 9.0)]})
    assert "IQR is 15% to 15% of the median" in text and "at most 0.0 %" in text
    assert "the file records nothing" in tables.noise_evidence({"rows": [row("noisy", None)]})


def _timed(model, bs, variant, ms, pct=None):
    return {"model": model, "batch_size": bs, "variant": variant, "status": "ok",
            "step_ms": {"median": ms}, "pct_of_peak": pct, "tflops": pct}


def test_the_host_s_share_of_a_step_is_what_cuda_graphs_take_off_it():
    doc = {"provenance": {"device_type": "cuda"},
           "rows": [_timed("m", 32, "model", 12.0), _timed("m", 32, "reduce-overhead", 4.0),
                    _timed("m", 128, "model", 12.6), _timed("m", 128, "reduce-overhead", 11.0),
                    _timed("n", 32, "model", 5.0)]}  # no CUDA-graph row: nothing to say
    doc["rows"][0]["profile"] = {"device_type": "cuda", "idle_fraction": 0.6,
                                 "kernels_per_call": 400.0, "top": []}
    lines = tables.waiting(doc).splitlines()
    assert len(lines) == 2
    assert "(the profiler finds the GPU idle 60% of it, between 400 kernels a step)" in lines[0]
    assert "at least 8.00 ms (67%) of `model`'s step the GPU waits" in lines[0]
    assert "at batch 128, 4 times the samples, `model`'s step takes 1.05 times as long" in lines[0]
    assert "the step is the GPU's work, not the host's" in lines[1]
    doc["rows"][1]["part"] = 1
    assert "timed in different commands" in tables.waiting(doc).splitlines()[0]


def test_the_peak_goal_reads_the_best_variant_at_the_largest_batch_on_a_gpu_only():
    rows = [_timed("resnet50", 32, "model", 10.0, 50.0),
            _timed("resnet50", 128, "model", 30.0, 20.0),
            _timed("resnet50", 128, "reduce-overhead", 25.0, 30.0),
            _timed("transformer", 128, "model", 5.0, 41.0)]
    text = tables.peak_goal({"provenance": {"device_type": "cuda"}, "rows": rows})
    assert "resnet50 at batch 128, goal 35 % of the measured bf16 peak: missed by 5.0 points" in (
        text) and "`reduce-overhead`, reaches 30.0 %" in text
    assert "transformer at batch 128, goal 40 % of the measured bf16 peak: reached" in text
    rows[2]["profile"] = {"device_type": "cuda", "idle_fraction": 0.25, "kernels_per_call": 900.0,
                          "top": [{"name": "sm90_xmma_fprop", "share": 0.3}]}
    said = ("The profiler: the GPU idle 25% of the step, the longest of its 900 kernels, "
            "`sm90_xmma_fprop`, 30 % of the step")
    text = tables.peak_goal({"provenance": {"device_type": "cuda"}, "rows": rows})
    assert said in text
    rows[2]["profile"]["by_class"] = {"matmul": 60.0, "triton": 30.0, "layout": 0.0, "other": 10}
    text = tables.peak_goal({"provenance": {"device_type": "cuda"}, "rows": rows})
    assert "matrix products and convolutions 60% of the kernel time" in text
    assert tables.peak_goal({"provenance": {"device_type": "cpu"}, "rows": rows}) == ""


def test_two_runs_of_the_same_commands_are_set_side_by_side(cpu_train_run, tmp_path):
    from snippets.site import build, pages

    doc = results.load(cpu_train_run)
    site = build.Build(docs_dir=tmp_path / "docs", cache_dir=tmp_path / "cache")
    folder = site.results_dir / results.run_folder(doc["provenance"])
    folder.mkdir(parents=True)
    (folder / "train.json").write_text(cpu_train_run.read_text())
    missing = pages.repeated("train", tables.agreement, device="cpu", build=site)
    assert "No recorded run yet" in missing and "second training" in missing
    again = json.loads(cpu_train_run.read_text())
    again["rows"][1]["speedup"] = doc["rows"][1]["speedup"] * 1.2  # `model` 20 % apart
    (folder / "train-repeat.json").write_text(json.dumps(again))
    out = pages.repeated("train", tables.agreement, device="cpu", build=site)
    compiled = sum(r["variant"] != "eager" for r in doc["rows"])
    assert f"{compiled - 1} of {compiled} compiled speedups agree within 5%; apart: `model` " \
           "(tiny-cnn · 4, +20%)." in out
    assert "recorded, run 1: CPU" in out and "; recorded, run 2: CPU" in out
    assert "What moved" in out and "| tiny-cnn · 4 · model |" in out.split("What moved")[1]
    assert "eager's step moved more than the variant's" in out


def _pair(variant, eager_ms, ms, speedup, part=0, canary=400.0):
    return [{**_timed("m", 32, "eager", eager_ms), "part": part, "host_canary_us": canary},
            {**_timed("m", 32, variant, ms), "part": part, "speedup": speedup,
             "host_canary_us": canary}]


def test_what_moved_between_two_runs_is_read_against_each_run_s_own_eager():
    doc = {"rows": _pair("reduce-overhead", 20.0, 5.0, 4.0)}
    again = {"rows": _pair("reduce-overhead", 25.0, 5.1, 4.9, canary=500.0)}
    text = tables.moved(doc, again, [("m", 32, "reduce-overhead")])
    assert table_rows(text)[0] == ["m · 32 · reduce-overhead", "20.0 → 25.0", "5.00 → 5.10",
                                   "400 → 500"]
    assert "In 1 of 1, eager's step moved more than the variant's." in text


def test_each_command_s_eager_row_is_shown_and_its_rows_read_against_it():
    rows = [*_pair("model", 20.0, 10.0, 2.0), *_pair("max-autotune-no-cudagraphs", 30.0, 12.0,
                                                     2.5, part=1)]
    rows = [rows[0], rows[2], rows[1], rows[3]]
    doc = {"provenance": {"device_type": "cuda"}, "rows": rows}
    labels = tables.labels(doc)
    assert labels[:2] == ["m · 32 · eager (beside model)",
                          "m · 32 · eager (beside max-autotune-no-cudagraphs)"]
    assert tables.by_key(doc)[("m", 32, "eager")] is rows[0]  # a group's first eager row
    assert tables.own_eager(doc, rows[3]) is rows[1]
    # Saved per step from the row's own speedup: 12 ms at 2.5x is 18 ms saved, not 30 - 12.
    assert tables.saved_ms(rows[3], rows[0]) == pytest.approx(18.0)
    assert tables.unpaired(doc) == ""
    legacy = {**doc, "rows": [rows[0], rows[2], rows[3]]}  # the second eager row not kept
    assert "`m · 32 · max-autotune-no-cudagraphs` are against" in tables.unpaired(legacy)


def test_where_the_time_goes_takes_run_2_s_profile_for_a_row_run_1_did_not_profile():
    doc = {"provenance": {"device_type": "cuda"},
           "rows": [_timed("m", 32, "model", 12.0), _timed("m", 32, "reduce-overhead", 4.0)]}
    again = json.loads(json.dumps(doc))
    again["rows"][0]["profile"] = {"device_type": "cuda", "idle_fraction": 0.6, "calls": 5,
                                   "kernels_per_call": 400.0, "launches_per_call": 399.0,
                                   "span_us_per_call": 10.0, "busy_us_per_call": 4.0,
                                   "top": [{"name": "Optimizer.step#AdamW.step",
                                            "us_per_call": 1.0, "count_per_call": 1.0,
                                            "share": 0.1}]}
    text = tables.where(doc, again)
    assert "(run 2's profile finds the GPU idle 60% of it, between 400 kernels" in text
    assert "| m · 32 · model (run 2) |" in text and "5 steps of each variant" in text
    assert "`Optimizer.step#AdamW.step` is not a kernel" in text  # a profile of before the fix
    assert "run 2" not in tables.where(doc)


def test_the_memory_table_counts_a_cuda_graph_s_pool_where_it_was_measured():
    eager = {**_timed("m", 8, "eager", 1.0), "peak_mem_mb": 100.0}
    graphs = {**_timed("m", 8, "reduce-overhead", 1.0), "peak_mem_mb": 50.0}
    doc = {"rows": [eager, graphs]}
    assert table_rows(tables.memory(doc))[1] == ["m · 8 · reduce-overhead", "50", "–",
                                                 "0.50x (no pool)"]
    graphs.update(graph_pool_mb=70.0, graph_pool_shared_with=["max-autotune"])
    assert table_rows(tables.memory(doc))[1] == ["m · 8 · reduce-overhead", "50",
                                                 "70 (shared with max-autotune)", "1.20x"]
    assert "50 + 70 pool" in tables.row_cells(graphs)


def test_no_graph_pool_is_read_off_a_gpu():
    import torch

    assert measure.graph_pool_mb(torch.device("cpu")) is None


def test_rows_of_two_commands_are_compared_through_each_command_s_eager():
    def row(variant, ms, speedup, iqr, part):
        return {**_timed("m", 32, variant, ms), "part": part, "speedup": speedup,
                "speedup_iqr": iqr, "step_ms": {"median": ms, "iqr": 0.1, "samples": [ms] * 3},
                "compile_s": 10.0 if variant == "model" else 200.0}

    # The host ran slower during the second command: its step is longer, yet it is the faster
    # of the two against the eager step of its own rounds.
    base, tuned = row("model", 10.0, 1.25, 0.05, 0), row("max-autotune", 11.0, 1.5, 0.06, 1)
    r = claims.ratio(base, tuned)
    assert r.value == pytest.approx(1.2) and r.iqr == pytest.approx(1.2 * (0.04 + 0.04))
    cell = claims.autotune_cell(base, tuned)
    assert "steps 1.20x ± 0.05 its speed" in cell and "pays after" in cell
    slower = row("max-autotune", 11.0, 1.26, 0.3, 1)  # within its spread
    assert "not measurably faster" in claims.autotune_cell(base, slower)


def test_an_eager_step_that_keeps_the_gpu_busy_names_its_longest_kernels():
    top = [{"name": n, "share": s, "us_per_call": 1.0, "count_per_call": 1.0} for n, s in
           (("Optimizer.step#AdamW.step", 0.5), ("bn_bw", 0.3), ("nchwToNhwc", 0.1),
            ("gemm", 0.05), ("relu", 0.01))]
    busy = {"device_type": "cuda", "idle_fraction": 0.04, "kernels_per_call": 9.0, "top": top}
    doc = {"rows": [_timed("m", 128, "eager", 50.0), _timed("m", 32, "eager", 20.0)]}
    seen = {("m", 128, "eager"): (busy, "run 2's profile"),
            ("m", 32, "eager"): ({**busy, "idle_fraction": 0.6}, "run 2's profile")}
    text = tables.eager_busy(doc, seen)
    assert text == ("- m at batch 128: eager's step keeps the GPU busy 96% of the time (run 2's "
                    "profile); its longest kernels are `bn_bw` (30 %), `nchwToNhwc` (10 %), "
                    "`gemm` (5 %).")  # the annotation is no kernel; batch 32 waits on the host
