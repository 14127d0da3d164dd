"""What the page computes from a ladder: goal verdicts with their evidence, findings, tables and
plots, on made-up documents whose arithmetic can be checked by hand."""

from __future__ import annotations

import math

import pytest
from matplotlib.axes import Axes

from snippets.speed import findings, goals, plots, settings, tables
from tests import drawn, markdown

from .docs_fixtures import doc, point, row

CEIL = {"matmul_n": 8192, "matmul_dtype": "bf16", "copy_mib": 2048, "matmul_tflops": 800.0,
        "matmul_samples": [800.0], "copy_gbps": 4000.0, "copy_samples": [4000.0]}
PROFILE = {"calls": 50, "kernels_per_call": 120.0, "launches_per_call": 1.0,
           "span_us_per_call": 500.0, "busy_us_per_call": 300.0, "idle_fraction": 0.4,
           "device_type": "cuda",
           "top": [{"name": "sm90_gemm", "us_per_call": 100.0, "count_per_call": 20.0,
                    "share": 0.2}]}


def ladder_doc(best_ms: float, pct: float, **prov) -> dict:
    moved = {"weights": 50_000_000, "input": 300_000, "output": 2_000}
    rows = []
    for model, bs in (("resnet50", 1), ("resnet50", 32), ("transformer", 1),
                      ("transformer", 32)):
        rows.append(row(model, bs, "eager", (4.0, 4.0, 4.0), speedup=1.0, bytes=moved,
                        flops=8e9 * bs))
        rows.append(row(model, bs, "+ CUDA graphs", (best_ms,) * 3, speedup=4.0 / best_ms,
                        speedup_prev=4.0 / best_ms, prev_rung="eager", bytes=moved,
                        flops=8e9 * bs, pct_of_peak=pct, profile=PROFILE,
                        tflops=pct / 100 * CEIL["matmul_tflops"]))  # pct of the printed ceiling
    return doc("bench", rows, ceilings=CEIL, peak_bf16_tflops=800.0, **prov)


def test_goals_met_say_so():
    found = goals.of(ladder_doc(0.1, 50.0))
    assert found.judged and [j.outcome for j in found.goals] == [goals.Outcome.MET] * 4
    assert all(j.why is None and j.over_ms is None and j.short is None for j in found.goals)


def test_goals_missed_say_by_how_much_and_why():
    found = goals.of(ladder_doc(0.5, 20.0)).goals
    assert [j.outcome for j in found] == [goals.Outcome.MISSED] * 4
    # 0.5 ms against 0.40: 0.1 ms, 1.25 times over; 20 % against 25: 5 points short
    assert math.isclose(found[0].over_ms, 0.1) and math.isclose(found[0].times, 1.25)
    assert math.isclose(found[1].short, 5.0)
    why = found[0].why
    assert math.isclose(why.idle_pct, 40.0) and (why.top, why.kernels) == ("sm90_gemm", 120.0)
    assert math.isclose(why.top_pct, 20.0)
    # floor: 50.3 MB at 4000 GB/s is 0.0126 ms, above 8 GFLOP at 800 TFLOP/s (0.01 ms)
    assert why.roof.bound == "memory" and f"{why.roof.bound_ms:.3g}" == "0.0126"


def test_goals_are_not_judged_off_an_h200_in_bf16():
    found = goals.of(ladder_doc(0.1, 50.0, device="CPU: x", dtype="fp32"))
    assert not found.judged and found.goals == () and found.dtype == "fp32"


def test_the_goals_are_listed_as_a_table():
    listed = markdown.all_rows(goals.listing())
    assert [(r[0], int(r[1])) for r in listed] == [(g.model, g.batch_size) for g in goals.GOALS]
    assert "0.4" in listed[0][2]


def test_findings_name_the_fastest_rung_and_the_step_that_buys_most():
    found = findings.ladders(ladder_doc(0.5, 20.0))
    first = found.ladders[0]
    assert (first.model, first.batch, first.mode, first.speedup) == (
        "resnet50", 1, "+ CUDA graphs", 8.0)
    assert (first.step.mode, first.step.below, first.step.speedup) == ("+ CUDA graphs",
                                                                       "eager", 8.0)
    assert (found.failed, found.rows) == (0, 8)


def test_the_report_carries_ceilings_roofline_and_profile():
    out = tables.ladder_report(ladder_doc(0.5, 20.0))
    assert "800 TFLOP/s" in out and "4000 GB/s" in out
    # The rung's row in the ladder, the roofline, and the profiles' tables, in that order
    _ladder, roof, profiled = markdown.rows(out, "resnet50", 1, "+ CUDA graphs")
    assert (roof[0], roof[3]) == ("0.500", "memory") and "`sm90_gemm`" in out
    assert profiled == ["120", "1", "500", "300", "40"]


def test_a_ladder_shows_one_eager_row_and_a_later_command_apart(monkeypatch):
    d = ladder_doc(0.5, 20.0)
    # a later command: max-autotune beside its own eager row (slower than the first's)
    d["rows"] += [row("resnet50", 1, "eager", (8.0,) * 3, speedup=1.0, part=1),
                  row("resnet50", 1, "+ max-autotune", (0.4,) * 3, speedup=20.0,
                      speedup_prev=20.0, prev_rung="eager", part=1)]
    ladder = tables.ladder(d)
    assert [r[0] for r in markdown.all_rows(ladder)].count(markdown.label("resnet50", 1,
                                                                          "eager")) == 1
    assert markdown.row(ladder, "resnet50", 1, "command 2 · + max-autotune") is None
    # apart, in a block that opens, its ratio against its own eager row, shown beside it
    out = tables.ladder_report(d)
    later = out[out.index("Rungs added later"):]
    assert markdown.row(later, "resnet50", 1, "command 2 · eager")[0].startswith("8.00 ")
    assert markdown.row(later, "resnet50", 1, "command 2 · + max-autotune")[1] == "20.00"
    # the figure: the climb from its one eager row, bars named by rung alone
    bars, names = (drawn.calls(monkeypatch, Axes, m) for m in ("barh", "set_yticks"))
    plots.ladder(d, "resnet50", 1)
    ((_, ms), _), = bars
    assert (ms[0], min(ms)) == (4.0, 0.5)  # the climb's two ends: eager's and the fastest's
    assert not any("command" in n for (_, labels), _ in names for n in labels)


def test_a_ladder_recorded_before_the_ceilings_still_renders():
    d = ladder_doc(0.5, 20.0)
    del d["provenance"]["ceilings"]
    for r in d["rows"]:
        r.pop("bytes"), r.pop("profile", None)
    out = tables.ladder_report(d)
    assert findings.ladders(d).ceilings is None
    assert "TFLOP/s" not in out and "Profiled rungs" not in out


def test_a_plot_per_ladder_with_its_floor_and_goal(monkeypatch):
    d = ladder_doc(0.5, 20.0)
    lines = drawn.calls(monkeypatch, Axes, "axvline")
    html = plots.ladders(d)
    placed = [x for (x, *_), _ in lines]
    judged = goals.of(d).goals
    assert html.count("<figure") == len(judged) == 4
    peak = d["provenance"]["peak_bf16_tflops"]
    for j in judged:  # each figure places its fastest rung's floor and its goal as a latency
        g = j.goal
        best = next(r for r in d["rows"] if (r["model"], r["batch_size"], r["mode"])
                    == (g.model, g.batch_size, j.mode))
        # a share of peak is the time the rung's FLOPs take at that share of the printed peak
        goal_ms = (g.target if g.metric == "latency_ms"
                   else best["flops"] / (g.target / 100 * peak * 1e12) * 1e3)
        assert pytest.approx(goal_ms) in placed and pytest.approx(j.why.roof.bound_ms) in placed


def test_settings_tables_name_each_mode_and_the_setting_chosen():
    d = doc(settings.KIND, [point("r", 1, "default", (1.0, 1.0, 1.0), benchmark=False),
                            point("r", 1, "default", (0.5, 0.5, 0.5), benchmark=True)])
    out = tables.settings_report(d)
    assert markdown.row(out, "default", "cudnn.benchmark") == ["helps", "1 / 0 / 1", "2.000",
                                                               "on"]
    assert markdown.row(out, "r") == ["1"]
    assert findings.settings(d) == (("r", (1,)),)
