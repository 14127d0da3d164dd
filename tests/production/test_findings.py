"""snippets.production.findings and serving_findings: the numbers and verdicts the production
page reads, on made-up rows; and the tables drawn beside them."""

from __future__ import annotations

import pytest

from snippets.core import render
from snippets.production import findings, runs, serving_findings, tables
from snippets.production.findings import CatchUp, Goal
from snippets.production.hazards import STEP_MARKS, Hazard, Outcome
from snippets.production.serving_findings import Rank, Slower
from tests.markdown import label, row, table_rows


def _run(model, path, rep, ms, misses=1, canary=None, **extra):
    return {"model": model, "path": path, "rep": rep, "status": "ok", "message": "",
            "import_s": 2.0, "ready_s": 5.0, "first_s": 6.0 + rep, "steady_s": 6.0,
            "build_s": None, "latency_ms": {"median": ms}, "fx_cache_misses": misses,
            "host_canary_us": canary, "rel_err": 0.0, **extra}


def _paths(**paths: tuple[float, float]) -> dict:
    """A start-up file of one model "m": each path one run with (first answer s, ms per call)."""
    return {"rows": [{**_run("m", p.replace("_", "-"), 0, ms), "first_s": first}
                     for p, (first, ms) in paths.items()]}


def _model(doc):
    return findings.startup(doc).models[0]


def test_the_start_up_goal_takes_the_fastest_portable_path_against_the_best_jit_one():
    reached = _model(_paths(eager=(3.0, 2.0), compile_warm=(9.0, 1.0), artifacts=(4.5, 1.04),
                            aot_load=(6.0, 1.0))).portable
    assert (reached.model, reached.path, reached.goal) == ("m", "artifacts", Goal.REACHED)
    assert reached.late == pytest.approx(1.5) and reached.slower == pytest.approx(0.04)
    slow = _model(_paths(eager=(3.0, 2.0), compile_warm=(9.0, 1.0), artifacts=(4.5, 1.2)))
    assert slow.portable.goal is Goal.MISSED and slow.portable.slower == pytest.approx(0.2)
    fast = _model(_paths(eager=(3.0, 2.0), compile_warm=(9.0, 1.0), artifacts=(4.5, 0.9)))
    assert fast.portable.slower == pytest.approx(-0.1)
    assert _model(_paths(eager=(3.0, 2.0), compile_warm=(9, 1))).portable is None


def test_each_path_catches_up_with_eager_after_its_extra_seconds_over_its_saving():
    m = _model(_paths(eager=(3.0, 2.0), compile_warm=(5.0, 1.0), aot_load=(2.0, 1.0),
                      regional=(9.0, 3.0)))
    got = {a.path: a for a in m.against}
    assert list(got) == ["compile-warm", "regional", "aot-load"]  # the page's order
    assert got["compile-warm"].catch_up is CatchUp.AFTER
    assert got["compile-warm"].calls == pytest.approx(2.0 / 1e-3)  # 2 s over 1 ms a call
    assert got["aot-load"].catch_up is CatchUp.NO_LATER and got["aot-load"].late == -1.0
    assert got["regional"].catch_up is CatchUp.NEVER and got["regional"].calls is None


def test_regional_compile_counts_its_graphs_a_spread_and_a_missing_canary():
    doc = {"rows": [_run("m", "eager", 0, 10.0, 0), _run("m", "eager", 1, 10.0, 0),
                    _run("m", "compile-empty", 0, 5.0), _run("m", "compile-empty", 1, 50.0),
                    _run("m", "regional", 0, 6.0, misses=4), _run("m", "aot-load", 0, 5.0, 0)]}
    found = findings.startup(doc)
    assert (found.regional_differ, found.regional_uncounted) == (("m",), ())
    [spread] = found.spreads
    assert (spread.label, spread.ratio) == ("compile, empty cache", 10.0)  # 5 and 50 ms a call
    assert found.models[0].package.load.load_s == 3.0 and found.canary_missing
    doc["rows"][0]["host_canary_us"] = 50.0
    doc["rows"][4]["fx_cache_misses"] = 0  # no miss: the count says nothing
    found = findings.startup(doc)
    assert not found.canary_missing
    assert (found.regional_differ, found.regional_uncounted) == ((), ("m",))


def test_failures_before_a_fix_are_told_apart_from_a_path_that_fails_now_and_then():
    def run(part, status, date):
        return {**_run("m", "aot-load", 0, 5.0, 0), "part": part, "status": status,
                "message": "" if status == "ok" else "crashed with SIGSEGV, File \"x.py\"",
                "date": date}

    parts = [{"commit": "a" * 40}, {"commit": "b" * 40}]
    fixed = {"provenance": {"parts": parts},
             "rows": [run(0, "error", "1"), run(0, "error", "2"), run(1, "ok", "3")]}
    [f] = findings.startup(fixed).partly_failed
    assert (f.fixed, f.bad, f.runs, f.first_good) == (True, 2, 3, "b" * 12)
    # the failures the table gives leave out the frame after ", File"
    assert runs.paths(fixed)[("m", "aot-load")].short == ("error: crashed with SIGSEGV",)
    flaky = {"provenance": {"parts": parts},
             "rows": [run(0, "ok", "1"), run(0, "error", "2"), run(1, "ok", "3")]}
    [f] = findings.startup(flaky).partly_failed
    assert (f.fixed, f.bad, f.runs) == (False, 1, 3) and not findings.startup(flaky).empty
    assert findings.startup({"rows": [run(0, "error", "1")]}).empty  # no run finished


def test_a_precompiled_function_is_beaten_by_each_path_that_answers_sooner_and_runs_no_slower():
    m = _model(_paths(eager=(3.0, 5.0), compile_warm=(4.0, 4.0), artifacts=(2.0, 6.0),
                      precompile_load=(9.0, 5.0), precompile_load_warm=(5.0, 5.0)))
    # judged by the warm load, its best: eager (sooner, as fast) and compile-warm (sooner,
    # faster) beat it; the artifacts answer sooner but run slower
    assert [s.path for s in m.precompiled.beaten_by] == ["eager", "compile-warm"]
    found = findings.startup(_paths(eager=(3.0, 5.0), compile_warm=(4.0, 4.0),
                                    precompile_load=(9.0, 5.0)))
    assert found.precompiled_beaten_by == ("m · eager", "m · compile, warm local cache")
    assert found.precompiled_idle == ("m",)  # eager is one of them: it bought nothing
    alone = _model(_paths(eager=(3.0, 5.0), precompile_load=(2.0, 4.0)))
    assert alone.precompiled.beaten_by == ()
    # a per-call median above the function's, over runs whose range holds it, is no slower
    doc = _paths(eager=(3.0, 5.0), precompile_load=(4.0, 4.5))
    doc["rows"].append({**_run("m", "eager", 1, 4.0), "first_s": 3.0})
    doc["rows"].append({**_run("m", "eager", 2, 6.0), "first_s": 3.0})
    assert [s.path for s in _model(doc).precompiled.beaten_by] == ["eager"]


def test_a_package_load_is_split_into_the_cpu_check_and_the_rest():
    def load(model, path, ready, isa):
        return {**_run(model, path, 0, 5.0, 0), "ready_s": ready, "isa_check_s": isa}

    doc = {"rows": [_run("m", "eager", 0, 10.0, 0), load("m", "aot-load", 12.0, 8.0),
                    load("m", "aot-load-warm", 3.0, 0.1), load("m", "aot-load-trusted", 6.0, 3.0),
                    _run("n", "eager", 0, 10.0, 0), load("n", "aot-load", 12.5, 8.5)]}
    found = findings.startup(doc)
    p = found.models[0].package
    assert (p.load.load_s, p.load.isa_s, p.load.isa_of_s) == (10.0, 8.0, 10.0)
    assert (p.warm.load_s, p.warm.isa_s) == (1.0, 0.1)
    assert (found.loads.low, found.loads.high, found.loads_mostly_check) == (10.0, 10.5, True)
    assert found.models[1].package.warm is None


def test_a_precompiled_function_is_read_like_a_package_and_kept_apart_from_it():
    doc = {"rows": [_run("m", "eager", 0, 10.0, 0), _run("m", "compile-warm", 0, 5.0),
                    {**_run("m", "precompile-build", 0, 5.0), "build_s": 30.0},
                    {**_run("m", "precompile-load", 0, 5.0, 0), "ready_s": 14.0,
                     "isa_checked": True},
                    {**_run("m", "precompile-load-warm", 0, 5.0, 0), "ready_s": 4.0}]}
    m = _model(doc)
    assert m.package is None
    assert (m.precompiled.load.load_s, m.precompiled.load.isa_checked) == (12.0, True)
    assert (m.precompiled.warm.load_s, m.precompiled.warm.isa_checked) == (2.0, None)
    assert m.precompiled.warm_load is findings.WarmLoad.MOSTLY_FOLDER  # 2 s of 12 s
    assert "precompile-load" in [a.path for a in m.against]
    assert m.portable.path == "precompile-load"  # the file's only portable path
    built = runs.paths(doc)["m", "precompile-build"]  # its first answer is its build's time
    assert render.num(built.build_s, ".1f") in row(tables.startup(doc), "m", built.label)[0]
    # The readings' tables, each its head, its rule and a row per path, load or model: the
    # paths without the build, the two loads, the one model's goal.
    assert [len(t.splitlines()) for t in tables.startup_readings(doc).split("\n\n")] == [
        6, 4, 3]


def test_the_start_up_table_shows_each_path_once_with_its_runs():
    doc = {"rows": [_run("m", "eager", 0, 10.0), {**_run("m", "aot-load", 0, 5.0),
                                                  "status": "error", "message": "boom"}]}
    found = runs.paths(doc)
    ok, failed = found["m", "eager"], found["m", "aot-load"]
    rows = table_rows(tables.startup(doc))
    assert [r[0] for r in rows] == [label("m", s.label) for s in (ok, failed)]  # each path once
    assert rows[0][1] == render.num(ok.first_s, ".1f") and rows[0][4] == f"{ok.good}/{ok.runs}"
    assert failed.good == 0 and "boom" in failed.short[0] and rows[1][-1] == failed.short[0]
    assert tables.report({**doc, "kind": "production-startup"}).count("<details") == 1


def _stream_row(strategy: str, compiles: int, p50: float, p99: float) -> dict:
    return {"strategy": strategy, "compiles": compiles, "p50_ms": p50, "p99_ms": p99,
            "max_ms": p99 * 2, "warmup_s": None, "status": "ok", "message": ""}


def test_the_stream_sets_each_tail_against_the_goal_and_each_median_against_eager():
    doc = {"rows": [_stream_row("eager", 0, 1.0, 2.0), _stream_row("no warm-up", 4, 1.0, 9.0),
                    _stream_row("warm-up", 0, 1.0, 1.4)]}
    found = serving_findings.stream(doc)
    assert (found.calm, found.clean) == ("warm-up", ("warm-up",))
    assert (found.within, found.above) == (("warm-up",), ())
    assert found.eager_tail == 2.0 and found.verdict is Slower.NONE
    doc["rows"][2]["p50_ms"] = 1.2  # a calm tail is not a speedup: the median says so
    found = serving_findings.stream(doc)
    assert found.verdict is Slower.SOME and found.slower == ("warm-up",)
    doc["rows"][2]["p99_ms"] = 2.0  # 2.0 over 1.2: above the goal of 1.5
    assert (found := serving_findings.stream(doc)).above == ("warm-up",) and not found.within
    assert not serving_findings.stream({"rows": []}).done


def test_the_stream_names_the_lowest_median_whichever_strategy_it_is():
    doc = {"rows": [_stream_row("eager", 0, 0.9, 2.0), _stream_row("warm-up", 0, 1.2, 1.4),
                    _stream_row("warm-up, buckets", 0, 1.5, 1.6)]}
    assert serving_findings.stream(doc).fastest == "eager"
    doc["rows"][2]["p50_ms"] = 0.5
    assert serving_findings.stream(doc).fastest == "warm-up, buckets"


def test_a_strategy_name_with_a_comma_stays_one_name():
    doc = {"rows": [_stream_row("warm-up", 0, 1.0, 1.4),
                    _stream_row("warm-up, buckets", 0, 1.0, 1.2)]}
    found = serving_findings.stream(doc)
    assert found.clean == ("warm-up", "warm-up, buckets") and found.verdict is None


def _row(hazard, variant, outcome, **extra):
    return {"hazard": hazard.value, "variant": variant, "outcome": outcome.value, "message": "",
            **extra}


def test_the_hazards_say_which_fix_kept_the_answer_by_their_keys():
    doc = {"rows": [_row(Hazard.OVERWRITTEN, "as written", Outcome.ERROR),
                    _row(Hazard.OVERWRITTEN, ".clone()", Outcome.CORRECT),
                    _row(Hazard.OVERWRITTEN, STEP_MARKS, Outcome.ERROR),
                    _row(Hazard.SKIPPED, "input mutation", Outcome.SKIPPED),
                    _row(Hazard.SKIPPED, "CPU tensor", Outcome.NOT_SKIPPED),
                    _row(Hazard.MEMORY, "default", Outcome.MEASURED, held_mb=2.0),
                    _row(Hazard.MEMORY, "reduce-overhead", Outcome.MEASURED, held_mb=50.0),
                    # A step that failed as a whole is named by the step, not a hazard.
                    {"hazard": "pool memory", "variant": "", "outcome": "error",
                     "message": "x"}]}
    found = serving_findings.hazards(doc)
    assert found.kept == (".clone()",) and found.lost == ("as written", STEP_MARKS)
    assert found.step_marks_lost
    assert (found.skipped, found.not_skipped, found.wrong, found.failed) == (
        ("input mutation",), ("CPU tensor",), (), ())
    assert (found.held_default_mb, found.held_graphs_mb) == (2.0, 50.0)
    assert "holds 50 MB" in tables.hazards(doc)


def _mode(mode, median, speedup, model="m", bs=1, compile_s=10.0):
    return {"model": model, "batch_size": bs, "mode": mode, "status": "ok",
            "latency_ms": {"median": median}, "speedup": speedup, "compile_empty_s": compile_s}


def test_two_modes_are_ranked_only_where_medians_and_speedups_agree():
    agree = serving_findings.modes({"rows": [
        _mode("eager", 4.0, None), _mode("reduce-overhead", 0.5, 8.0),
        _mode("max-autotune", 0.4, 10.0, compile_s=100.0)]})
    assert agree.fastest == ("m · batch 1: `max-autotune`",)
    [pair] = agree.pairs
    assert (pair.model, pair.batch, pair.tuned, pair.base, pair.rank) == (
        "m", 1, "max-autotune", "reduce-overhead", Rank.PAYS)
    assert pair.by_median == pytest.approx(1.25) and pair.by_speedup == pytest.approx(1.25)
    assert (pair.tuned_compile_s, pair.base_compile_s) == (100.0, 10.0)
    assert not agree.split and agree.apart == ()
    assert agree.absent == ("default", "max-autotune-no-cudagraphs")
    # max-autotune beside a slower eager (0.6 ms at 9x: 5.4 ms, against the eager row's 4.0):
    # slower by medians, faster by speedups.
    doc = {"rows": [_mode("eager", 4.0, None), _mode("reduce-overhead", 0.5, 8.0),
                    _mode("max-autotune", 0.6, 9.0)]}
    split = serving_findings.modes(doc)
    assert split.pairs[0].rank is Rank.SPLIT and split.split
    assert split.apart == ("m · batch 1: `max-autotune`",)
    assert len(tables.mode_pairs(doc).splitlines()) == 3  # its head, its rule, the one pair


@pytest.mark.parametrize(("warm_ready", "verdict"), [
    (4.0, findings.WarmLoad.MOSTLY_FOLDER), (9.0, findings.WarmLoad.SHORTER),
    (13.5, findings.WarmLoad.ALIKE)])
def test_a_warm_load_is_judged_against_the_load_on_an_empty_folder(warm_ready, verdict):
    doc = {"rows": [_run("m", "eager", 0, 10.0, 0),
                    {**_run("m", "precompile-load", 0, 5.0, 0), "ready_s": 14.0},  # 12 s
                    {**_run("m", "precompile-load-warm", 0, 5.0, 0), "ready_s": warm_ready}]}
    assert _model(doc).precompiled.warm_load is verdict
    found = findings.startup(doc)
    assert (found.warm_mostly_folder, found.warm_alike) == (
        ("m",) if verdict is findings.WarmLoad.MOSTLY_FOLDER else (),
        ("m",) if verdict is findings.WarmLoad.ALIKE else ())


def test_a_per_call_time_inside_eager_s_own_spread_counts_no_catch_up():
    # Eager's two processes took 8 and 12 ms a call: a path at 9 ms, seconds later, is not
    # shown to gain anything, so no count of calls is given; one at 5 ms is.
    doc = {"rows": [_run("m", "eager", 0, 8.0), _run("m", "eager", 1, 12.0),
                    {**_run("m", "compile-warm", 0, 9.0), "first_s": 9.0},
                    {**_run("m", "regional", 0, 5.0), "first_s": 9.0}]}
    got = {a.path: a for a in _model(doc).against}
    assert got["compile-warm"].catch_up is CatchUp.WITHIN_SPREAD
    assert got["compile-warm"].calls is None
    assert got["regional"].catch_up is CatchUp.AFTER
