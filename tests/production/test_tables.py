"""snippets.production.tables: the readings computed from the tables, on made-up rows."""

from __future__ import annotations

from snippets.production import tables


def _summary(model: str, **paths: tuple[float, float]) -> dict:
    return {(model, p.replace("_", "-")): {"first_s": first, "ms": ms, "good": 1, "runs": 1,
                                          "status": "ok", "steady_s": first, "build_s": None}
            for p, (first, ms) in paths.items()}


def test_the_start_up_goal_takes_the_fastest_portable_path_against_the_best_jit_one():
    reached = _summary("m", eager=(3.0, 2.0), compile_warm=(9.0, 1.0), artifacts=(4.5, 1.04),
                       aot_load=(6.0, 1.0))
    line = tables.startup_goal(reached, "m")
    assert "cache artifacts" in line and "reached: 1.5 s after eager, 4% slower per call" in line
    assert "first answer and at most" in line
    slow = _summary("m", eager=(3.0, 2.0), compile_warm=(9.0, 1.0), artifacts=(4.5, 1.2))
    assert "missed: 1.5 s after eager, 20% slower per call" in tables.startup_goal(slow, "m")
    fast = _summary("m", eager=(3.0, 2.0), compile_warm=(9.0, 1.0), artifacts=(4.5, 0.9))
    assert "10% faster per call" in tables.startup_goal(fast, "m")
    assert tables.startup_goal(_summary("m", eager=(3.0, 2.0), compile_warm=(9, 1)), "m") == ""


def _stream_row(strategy: str, compiles: int, p50: float, p99: float) -> dict:
    return {"strategy": strategy, "compiles": compiles, "p50_ms": p50, "p99_ms": p99,
            "max_ms": p99 * 2, "warmup_s": None, "status": "ok", "message": ""}


def test_the_stream_reading_sets_each_tail_against_the_goal_and_eager():
    doc = {"rows": [_stream_row("eager", 0, 1.0, 2.0), _stream_row("no warm-up", 4, 1.0, 9.0),
                    _stream_row("warm-up", 0, 1.0, 1.4)]}
    text = tables.stream_reading(doc)
    p99 = next(line for line in text.splitlines() if "p99" in line)
    assert "`warm-up` 1.40x (within 1.5x)" in p99 and "no warm-up" not in p99
    assert "Eager, which compiles nothing, has 2.00x" in text
    assert "no compiled strategy answers slower than eager" in text
    doc["rows"][2]["p50_ms"] = 1.2  # a calm tail is not a speedup: the median says so
    assert "`warm-up` 1.20 ms; slower than eager: `warm-up`." in tables.stream_reading(doc)


def _run(model, path, rep, ms, misses=1, canary=None):
    return {"model": model, "path": path, "rep": rep, "status": "ok", "message": "",
            "import_s": 2.0, "ready_s": 5.0, "first_s": 6.0 + rep, "steady_s": 6.0,
            "build_s": None, "latency_ms": {"median": ms}, "fx_cache_misses": misses,
            "host_canary_us": canary}


def test_the_start_up_reading_explains_regional_spread_load_and_a_missing_canary():
    doc = {"rows": [_run("m", "eager", 0, 10.0, 0), _run("m", "eager", 1, 10.0, 0),
                    _run("m", "compile-empty", 0, 5.0), _run("m", "compile-empty", 1, 50.0),
                    _run("m", "regional", 0, 6.0, misses=4), _run("m", "aot-load", 0, 5.0, 0)]}
    text = tables.startup_reading(doc)
    assert "4 graph(s) for it (cache misses) against 1 for the whole model" in text
    assert "its blocks are not identical" in text
    assert "compile, empty cache: its runs' per-call figures differ 10.0x" in text
    assert "loading it took 3.0 s" in text
    assert "Host canary: not recorded in this file" in text
    doc["rows"][0]["host_canary_us"] = 50.0
    assert "Host canary" not in tables.startup_reading(doc)


def test_failures_before_a_fix_are_told_apart_from_a_path_that_fails_now_and_then():
    def run(part, status, date):
        return {**_run("m", "aot-load", 0, 5.0, 0), "part": part, "status": status,
                "message": "" if status == "ok" else "crashed with SIGSEGV, File \"x.py\"",
                "date": date}

    parts = [{"commit": "a" * 40}, {"commit": "b" * 40}]
    fixed = {"provenance": {"parts": parts},
             "rows": [run(0, "error", "1"), run(0, "error", "2"), run(1, "ok", "3")]}
    line = tables.startup_reading(fixed)
    assert ("its first 2 runs failed (error: crashed with SIGSEGV), the last at commit "
            "aaaaaaaaaaaa; every run since, from commit bbbbbbbbbbbb on, was ok") in line
    flaky = {"provenance": {"parts": parts},
             "rows": [run(0, "ok", "1"), run(0, "error", "2"), run(1, "ok", "3")]}
    assert "1 of 3 runs failed (error: crashed with SIGSEGV) between runs that were ok" in (
        tables.startup_reading(flaky))


def test_a_quoted_strategy_name_keeps_its_comma():
    doc = {"rows": [_stream_row("warm-up", 0, 1.0, 1.4),
                    _stream_row("warm-up, buckets", 0, 1.0, 1.2)]}
    assert "`warm-up`, `warm-up, buckets`" in tables.stream_reading(doc)


def test_the_hazard_reading_says_which_fix_kept_the_answer():
    def row(hazard, variant, outcome, **extra):
        return {"hazard": hazard, "variant": variant, "outcome": outcome, "message": "", **extra}

    doc = {"rows": [row("output read after the next replay", "as written", "error"),
                    row("output read after the next replay", ".clone()", "correct"),
                    row("output read after the next replay", "cudagraph_mark_step_begin()",
                        "error"),
                    row("graph skipped", "input mutation", "skipped"),
                    row("graph skipped", "CPU tensor", "not skipped"),
                    row("memory held between calls", "default", "measured", held_mb=2.0),
                    row("memory held between calls", "reduce-overhead", "measured",
                        held_mb=50.0)]}
    text = tables.hazards_reading(doc)
    assert "correct with `.clone()`" in text and "Only a copy does." in text
    assert "skipped: input mutation; not skipped: CPU tensor" in text
    assert "keeps 50 MB reserved against `default`'s 2 MB" in text


def test_a_package_load_is_split_into_the_cpu_check_and_the_rest():
    def load(model, path, ready, isa):
        return {**_run(model, path, 0, 5.0, 0), "ready_s": ready, "isa_check_s": isa}

    doc = {"rows": [_run("m", "eager", 0, 10.0, 0), load("m", "aot-load", 12.0, 8.0),
                    load("m", "aot-load-warm", 3.0, 0.1), load("m", "aot-load-trusted", 6.0, 3.0),
                    _run("n", "eager", 0, 10.0, 0),
                    load("n", "aot-load", 12.5, 8.5)]}
    text = tables.startup_reading(doc)
    assert "loading it took 10.0 s" in text
    assert "Of the loading, 8.0 s went to Inductor's check of the CPU's vector instructions" in text
    assert "Loaded again on the same cache folder, as after a restart, it took 1.0 s (0.1 s" in text
    assert "`TORCHINDUCTOR_VEC_ISA_OK=1`" in text and "took 4.0 s, 3.0 s of it still the check" in (
        text)
    assert "(10.0 to 10.5 s): a cost of loading itself, not of the model, most of it the check" in (
        text)


def _mode(mode, median, speedup, model="m", bs=1):
    return {"model": model, "batch_size": bs, "mode": mode, "status": "ok",
            "latency_ms": {"median": median}, "speedup": speedup, "compile_empty_s": 10.0}


def test_two_modes_are_ranked_only_where_medians_and_speedups_agree():
    agree = {"rows": [_mode("eager", 4.0, None), _mode("reduce-overhead", 0.5, 8.0),
                      _mode("max-autotune", 0.4, 10.0)]}
    assert "`max-autotune` against `reduce-overhead`: pays (1.25x its speed by medians" in (
        tables.modes_reading(agree))
    # max-autotune beside a slower eager: slower by medians, faster by speedups.
    split = {"rows": [_mode("eager", 4.0, None), _mode("reduce-overhead", 0.5, 8.0),
                      _mode("max-autotune", 0.6, 9.0)]}
    text = tables.modes_reading(split)
    assert "`max-autotune` against `reduce-overhead`: cannot be ranked from this file" in text
    assert "`max-autotune` ran beside an eager run of 5.40 ms, against the eager row's 4.00 ms" in (
        text)
