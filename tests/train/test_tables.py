"""The training page's tables and verdicts, over a real CPU run: their shape and their rules,
never the timings in them."""

from __future__ import annotations

import html
import re

import pytest

from snippets.core import measure, results
from snippets.train import aot, aot_claim, claims, compare, findings, tables
from tests.markdown import label, table_rows

from .conftest import QUICK
from .rows import pair, timed
from .test_cli import run_cli


def test_the_page_table_has_a_row_per_variant_and_every_column_in_its_block(cpu_train_run):
    doc = results.load(cpu_train_run)
    text = tables.results(doc)
    rows = table_rows(text)
    assert [r[0] for r in rows] == [f"tiny-cnn · 4 · {r['variant']}" for r in doc["rows"]]
    assert "<details" in text and all(c in text for c in tables.COLUMNS)
    payoff = table_rows([t for t in text.split("\n\n") if t.startswith("|")][-1])
    assert [r[0] for r in payoff] == [f"tiny-cnn · 4 · {r['variant']}" for r in doc["rows"]
                                      if r["variant"] != "eager"]


def test_the_loss_table_samples_each_curve(cpu_train_run):
    doc = results.load(cpu_train_run)
    text = tables.losses(doc)
    head = text.splitlines()[0]
    assert "Step 1 |" in head and "Step 5 |" in head  # the first and the last step
    eager = table_rows(text)[0]
    assert eager[1] == f"{doc['rows'][0]['losses'][0]:.4g}"
    assert findings.learning(doc) == findings.Learning(5, 0.001, ())


def test_break_even_steps():
    eager = {"step_ms": {"median": 3.0}, "compile_s": 0.5}
    row = {"step_ms": {"median": 1.0}, "compile_s": 2.5}
    assert tables.break_even_steps(row, eager) == pytest.approx(1000)  # 2 s over 2 ms a step
    assert tables.break_even_steps({**row, "step_ms": {"median": 4.0}}, eager) is None


def test_memory_says_when_none_was_measured(cpu_train_run):
    doc = results.load(cpu_train_run)
    assert not findings.of(doc).memory_measured
    assert all(r[1] == "–" for r in table_rows(tables.memory(doc)))


R = measure.Ratio


H = claims.Holds


@pytest.mark.parametrize(("opt", "whole", "share", "expect"), [
    (R(1.0, 0.1), R(1.0, 0.1), 0.0, H.HOLDS),  # the whole step is no faster
    (R(1.2, 0.1), R(1.2, 0.1), 0.15, H.BY_EXCEPTION),  # faster, and the optimizer a hot spot
    # Measurably faster, but saving less than the mark: no hot spot, so the whole step's win
    # contradicts the advice.
    (R(1.2, 0.1), R(1.3, 0.1), 0.05, H.DOES_NOT_HOLD),
    (R(1.0, 0.1), R(1.3, 0.1), 0.0, H.DOES_NOT_HOLD),
    (R(1.0, 0.1), R(1.04, 0.1), 0.0, H.HOLDS),  # within its spread
    (None, R(1.3, 0.1), 0.1, H.NO_VERDICT),
])
def test_optimizer_verdict(opt, whole, share, expect):
    assert claims.optimizer_verdict(opt, whole, share) is expect


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
    doc = results.load(cpu_train_run)
    optimizer, autotune = (table_rows(t) for t in claims.verdicts(doc).split("\n\n"))
    assert optimizer[0][0] == "tiny-cnn · 4"
    assert claims.optimizer_judged(doc)[0].verdict in (H.HOLDS, H.BY_EXCEPTION, H.DOES_NOT_HOLD)
    assert optimizer[0][4] == claims.optimizer_judged(doc)[0].verdict.value
    # No autotuned variant in a CPU run: its claim says so instead of guessing.
    (tuned,) = claims.autotune_judged(doc)
    assert (tuned.mode, tuned.verdict) == ("max-autotune-no-cudagraphs", H.NOT_MEASURED)
    assert autotune[0][-1] == "not measured"


def test_what_aot_autograd_traced():
    value = aot.traced()
    seen = {v["variant"]: v for v in value}
    model, step = seen["model"], seen["step"]
    assert [g["kind"] for g in model["graphs"]] == ["forward", "backward"]
    assert not any(g["loss"] for g in model["graphs"]) and model["breaks"] == 0
    assert [g["kind"] for g in step["graphs"][:2]] == ["forward", "backward"]
    assert step["graphs"][0]["loss"] and step["graphs"][1]["loss"]
    assert any("backward" in r for r in step["reasons"])
    seen = aot_claim.traced(value)
    assert seen == aot_claim.Traced(True, False, ("forward", "backward"),
                                   aot_claim.Aot.IN_PART)
    assert table_rows(aot_claim.aot_report(value).split("\n\n")[1])[-1] == [
        "Verdict", "**holds in part**"]


def test_a_variant_that_learns_differently_is_marked(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, _, _ = run_cli(capsys, "--model", "tests.train.faults:learns_differently",
                         "--variants", "model", *QUICK, "--output", str(out), "--format", "json")
    assert code == 0
    doc = results.load(out)
    row = doc["rows"][1]
    assert row["status"] == "mismatch" and f"{row['loss_gap']:.3g}" in row["message"]
    assert row["loss_gap"] > 1e-3 and row["step_ms"]  # timed all the same, and its speedup marked
    assert table_rows(tables.table(doc))[1][2].endswith(", invalid")
    assert [d.variant for d in findings.learning(doc).drifted] == ["model"]


def test_compare_names_the_settings_that_differ(cpu_train_run):
    from snippets.core import compare as core_compare

    doc = results.load(cpu_train_run)
    other = {**doc, "provenance": {**doc["provenance"], "settings": {
        **doc["provenance"]["settings"], "dtype": "bf16 autocast"}}}
    assert compare.compare_title(doc, doc).endswith("same settings")
    (differs,) = core_compare.setting_differences(doc, other, compare.COMPARED_SETTINGS)
    assert differs.split(" here, ") == ["dtype: fp32", "bf16 autocast recorded"]
    assert differs in compare.compare_title(doc, other)
    assert len(compare.compare_rows(doc, other)) == len(doc["rows"])


def test_the_loss_plot_draws_one_figure_per_model_with_its_text(cpu_train_run, monkeypatch):
    from matplotlib.axes import Axes

    from snippets.train import plots
    from tests import drawn

    doc = results.load(cpu_train_run)
    html = plots.losses(doc)
    assert html.count("<figure") == len({r["model"] for r in doc["rows"]}) == 1
    assert "tiny-cnn" in _alt(html)  # the text alternative names the model
    drifted = {**doc, "rows": [{**r, "status": "mismatch"} if r["variant"] == "step" else r
                               for r in doc["rows"]]}
    # The legend names the drifted variant (its glyphs are drawn as paths: read its labels).
    lines = drawn.calls(monkeypatch, Axes, "plot")
    plots.losses(drifted)
    assert "step (drifted)" in [kw.get("label") for _, kw in lines]


def _alt(text: str) -> str:
    """The text alternative of the first plot: what a screen reader says in place of it."""
    return html.unescape(re.search(r'role="img" aria-label="([^"]*)"', text).group(1))


def test_each_command_s_rows_stand_in_a_block_opened_by_its_own_eager_row():
    rows = [*pair("model", 20.0, 10.0, 2.0), *pair("max-autotune-no-cudagraphs", 30.0, 12.0,
                                                     2.5, part=1)]
    rows = [rows[0], rows[2], rows[1], rows[3]]
    doc = {"provenance": {"device_type": "cuda"}, "rows": rows}
    assert tables.labels(doc) == [label("m", 32, "eager"), label("m", 32, "command 2", "eager"),
                                  label("m", 32, "model"),
                                  label("m", 32, "command 2", "max-autotune-no-cudagraphs")]
    shown = [(p.row, p.paired) for p in tables.placed(rows)]
    assert shown == [(rows[0], True), (rows[2], True), (rows[1], True), (rows[3], True)]
    assert tables.by_key(doc)[("m", 32, "eager")] is rows[0]  # a group's first eager row
    assert tables.own_eager(doc, rows[3]) is rows[1]
    # Saved per step from the row's own speedup: 12 ms at 2.5x is 18 ms saved, not 30 - 12.
    assert tables.saved_ms(rows[3], rows[0]) == pytest.approx(18.0)
    # The second command's eager row not kept: its row is shown, without a speedup.
    legacy = [rows[0], rows[2], rows[3]]
    assert [p.paired for p in tables.placed(legacy)] == [True, True, False]
    shown = table_rows(tables.table({**doc, "rows": legacy}))
    assert shown[2][0] == label("m", 32, "command 2", "max-autotune-no-cudagraphs")
    assert shown[2][2] == "–"
    # Nor a saving or a payback: both would rest on that eager row.
    paid = {r[0]: r[1:] for r in table_rows(tables.payoff({**doc, "rows": legacy}))}
    assert paid[label("m", 32, "max-autotune-no-cudagraphs")] == ["–", "–", "–"]


def test_the_memory_table_counts_a_cuda_graph_s_pool_where_it_was_measured():
    eager = {**timed("m", 8, "eager", 1.0), "peak_mem_mb": 100.0}
    graphs = {**timed("m", 8, "reduce-overhead", 1.0), "peak_mem_mb": 50.0}
    doc = {"rows": [eager, graphs]}
    assert table_rows(tables.memory(doc))[1] == ["m · 8 · reduce-overhead", "50", "–",
                                                 "0.50x (no pool)"]
    graphs.update(graph_pool_mb=70.0, graph_pool_shared_with=["max-autotune"])
    assert table_rows(tables.memory(doc))[1] == ["m · 8 · reduce-overhead", "50",
                                                 "70 (shared with max-autotune)", "1.20x"]
    assert "50 + 70 pool" in table_rows(tables.markdown_table([graphs]))[0]


def test_no_graph_pool_is_read_off_a_gpu():
    import torch

    assert measure.graph_pool_mb(torch.device("cpu")) is None


def test_rows_of_two_commands_are_compared_through_each_command_s_eager():
    def row(variant, ms, speedup, iqr, part):
        return {**timed("m", 32, variant, ms), "part": part, "speedup": speedup,
                "speedup_iqr": iqr, "step_ms": {"median": ms, "iqr": 0.1, "samples": [ms] * 3},
                "compile_s": 10.0 if variant == "model" else 200.0}

    # The host ran slower during the second command: its step is longer, yet it is the faster
    # of the two against the eager step of its own rounds.
    base, tuned = row("model", 10.0, 1.25, 0.05, 0), row("max-autotune", 11.0, 1.5, 0.06, 1)
    r = claims.ratio(base, tuned)
    assert r.value == pytest.approx(1.2) and r.iqr == pytest.approx(1.2 * (0.04 + 0.04))
    got = claims.autotune_judged_one("m", 32, "max-autotune", base, tuned)
    assert (got.base, got.cost, got.verdict) == ("model", 20.0, H.HOLDS)
    assert got.payback is claims.Payback.PAYS and got.pays_after > 0
    slower = row("max-autotune", 11.0, 1.26, 0.3, 1)  # within its spread
    assert claims.autotune_judged_one("m", 32, "max-autotune", base, slower).payback is \
        claims.Payback.NOT_SHOWN


def test_two_replayed_cuda_graphs_of_two_commands_are_set_against_each_other_by_their_steps():
    def row(variant, ms, speedup, part, canary):
        return {**timed("m", 32, variant, ms), "part": part, "speedup": speedup,
                "speedup_iqr": 0.0,
                "step_ms": {"median": ms, "samples": [0.99 * ms, ms, 1.01 * ms]},
                "compile_s": 10.0 if variant == "reduce-overhead" else 200.0,
                "host_canary_us": canary}

    # Eager ran on a faster host beside max-autotune: its speedup reads lower, its step is not.
    graphs, tuned = row("reduce-overhead", 10.0, 2.0, 0, 450.0), row("max-autotune", 9.0, 1.5, 1,
                                                                     250.0)
    r = claims.ratio(graphs, tuned)
    assert r.value == pytest.approx(10 / 9) and r.iqr == pytest.approx(10 / 9 * 0.02, rel=1e-3)
    got = claims.autotune_judged_one("m", 32, "max-autotune", graphs, tuned)
    assert got.base == "reduce-overhead" and got.hosts_apart is None  # replays: no caveat
    doc = {"rows": [graphs, tuned, row("model", 20.0, 1.0, 0, 450.0)]}
    assert table_rows(claims.autotune_claim(doc))[0][1] == "`max-autotune` against " \
                                                             "`reduce-overhead`"
    # A replay whose rounds spread (noisy) waits on the host too: across hosts this far apart,
    # its step is not ranked against another command's.
    got = claims.autotune_judged_one("m", 32, "max-autotune", {**graphs, "status": "noisy"},
                                     tuned)
    assert got.payback is claims.Payback.UNRANKED and got.hosts_apart == pytest.approx(0.8)
    # A host-bound step of another command gets the hosts' difference beside its verdict.
    base, other = row("model", 20.0, 1.0, 0, 300.0), row("max-autotune-no-cudagraphs", 18.0,
                                                           1.2, 1, 450.0)
    assert tables.hosts_apart(base, other) == pytest.approx(0.5)
    got = claims.autotune_judged_one("m", 32, "max-autotune-no-cudagraphs", base, other)
    assert got.payback is claims.Payback.UNRANKED and got.hosts_apart == pytest.approx(0.5)
    near = claims.autotune_judged_one("m", 32, "max-autotune-no-cudagraphs", base,
                                      {**other, "host_canary_us": 320.0})
    assert near.hosts_apart is None and near.payback is not claims.Payback.UNRANKED


def test_the_loss_table_tells_each_command_s_eager_row_apart():
    rows = [*pair("model", 20.0, 10.0, 2.0), *pair("step", 30.0, 12.0, 2.5, part=1)]
    for r in rows:
        r["losses"] = [1.0, 0.5]
    text = tables.losses({"provenance": {"settings": {}}, "rows": rows})
    assert [r[0] for r in table_rows(text)] == [
        label("m", 32, "eager"), label("m", 32, "model"), label("m", 32, "command 2", "eager"),
        label("m", 32, "command 2", "step")]


def test_the_optimizer_claim_gives_no_verdict_across_hosts_too_far_apart():
    def row(variant, ms, speedup, part, canary):
        return {**timed("m", 32, variant, ms), "part": part, "speedup": speedup,
                "speedup_iqr": 0.01, "host_canary_us": canary,
                "step_ms": {"median": ms, "samples": [ms, ms, ms]}}

    rows = [row("eager", 40.0, None, 0, 500.0), row("model+optimizer", 25.0, 1.6, 0, 500.0),
            row("step", 25.0, 1.6, 0, 500.0), row("eager", 40.0, None, 1, 250.0),
            row("model", 20.0, 2.0, 1, 250.0)]
    (got,) = claims.optimizer_judged({"rows": rows})
    assert got.verdict is H.NO_VERDICT and got.hosts_apart == pytest.approx(1.0)
    assert table_rows(claims.optimizer_claim({"rows": rows}))[0][-1] == "no verdict: hosts " \
                                                                          "100% apart"
    for r in rows:
        r["host_canary_us"] = 400.0
    (got,) = claims.optimizer_judged({"rows": rows})
    assert got.verdict is H.HOLDS and got.hosts_apart is None  # the whole step is no faster
