"""Tests of the renderings over recorded runs: run-to-run stability and the findings under tables.

They read the results files committed under docs/results/, which are real runs; they assert on
structure (every configuration present, every round accounted for), never on the timings."""

from __future__ import annotations

import statistics
from pathlib import Path

from snippets import bench
from snippets.bench import crosscheck_findings, crosscheck_tables, findings, stability
from snippets.bench import stability_tables, tables
from snippets.core import results
from snippets.core.findings import Span, Verdict
from snippets.site import pages
from snippets.site.build import Build
from tests.markdown import table_rows

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "docs/results/nvidia-h200_torch-2.11.0"


def test_speedup_spread_lists_every_compiled_configuration_of_every_run():
    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    assert len(runs) >= 2 and runs[0][0] == "bench"
    text = stability_tables.speedup_spread(runs)
    rows = table_rows(text)
    compiled = [r for r in runs[0][1]["rows"] if r["mode"] != "eager"]
    assert [r[0] for r in rows] == [f"{r['model']} · {r['batch_size']} · {r['mode']}"
                                    for r in compiled]
    assert all(r[1] == str(len(runs)) for r in rows)  # every run holds every configuration
    per_run = table_rows(text.split("<summary>")[1])  # the table inside the details block
    assert len(per_run) == len(compiled) and all(len(r) == 1 + len(runs) for r in per_run)


def test_spells_account_for_every_round_once():
    doc = results.load(H200 / "bench.json")
    row = doc["rows"][0]
    table = table_rows(stability_tables.spells(doc, row["model"], row["batch_size"]))
    covered = []
    for cells in table:
        where = cells[0].split(" · ")[0]
        first, _, last = where.partition("–")  # one round is one number, not "3–3"
        covered += range(int(first), int(last or first) + 1)
    assert covered == list(range(1, len(row["latency_ms"]["samples"]) + 1))


def test_every_evidence_section_is_stamped():
    for which in ("spread", "host", "spells", "claims"):
        section = pages.evidence(which, build=Build(docs_dir=ROOT / "docs"))
        assert '<p class="stamp">recorded: NVIDIA H200' in section


def test_bench_findings_name_the_fastest_mode_of_each_group():
    doc = results.load(H200 / "bench.json")
    found = findings.of(doc)
    groups = list(dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]))
    assert [(f.model, f.batch) for f in found.fastest] == groups
    for f in found.fastest:  # the fastest by median, its ratio against eager's in the same run
        group = [r for r in doc["rows"] if (r["model"], r["batch_size"]) == (f.model, f.batch)]
        best = min(group, key=lambda r: r["latency_ms"]["median"])
        eager = next(r for r in group if r["mode"] == "eager")
        assert f.mode == best["mode"]
        assert f.speedup == eager["latency_ms"]["median"] / best["latency_ms"]["median"]


def test_the_h200_run_is_read_whole():
    # What the recorded run measured (how noisy, which bound, which verdict) is the page's to
    # show and may change with each run; what must hold is that every row and model is read.
    found = findings.of(results.load(H200 / "bench.json"))
    assert {g.model for g in found.growth} == {"resnet50", "transformer"}
    assert all(isinstance(g.bound, findings.Bound) for g in found.growth)
    assert all(isinstance(g.verdict, Verdict) for g in found.gains)
    assert (found.rows, found.failed) == (12, 0)


def test_runs_stamp_names_one_date_once_and_commits_at_one_length():
    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    one = stability_tables.runs_stamp(runs[:1])
    assert " · 1 run, " in one and " to " not in one and " · commit " in one
    commits = stability_tables.runs_stamp(runs).rpartition("commits ")[2].split(", ")
    assert all(len(c) <= 12 for c in commits)


def test_host_evidence_is_stamped_with_the_runs_it_shows():
    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    body, used = stability_tables.evidence("host", runs)
    shown = {cells[0].split(" · ")[0] for cells in table_rows(body)}
    assert shown == {label for label, _ in used}


def test_spells_label_a_round_by_every_host_bound_variant():
    rows = {("m", 1, "eager"): {"latency_ms": {"samples": [1, 2, 2, 1]}},
            ("m", 1, "default"): {"latency_ms": {"samples": [1, 1, 2, 1]}},
            ("m", 1, "reduce-overhead"): {"latency_ms": {"samples": [1, 1, 1, 1]}}}
    states = stability.round_states(rows, ["eager", "default", "reduce-overhead"], "m", 1)
    assert states == ["normal", "partly slow", "slow spell", "normal"]


def test_a_mode_range_spans_the_batch_sizes_of_its_model():
    doc = results.load(H200 / "bench.json")
    found = findings.of(doc)
    rng = found.range_of("resnet50", "reduce-overhead")
    got = [r["speedup"] for r in doc["rows"]
           if (r["model"], r["mode"]) == ("resnet50", "reduce-overhead")]
    assert (rng.speedup.low, rng.speedup.high) == (min(got), max(got))
    doc["rows"] = [r for r in doc["rows"] if r["batch_size"] == 1]
    one = findings.of(doc).range_of("resnet50", "reduce-overhead").speedup
    assert one.low == one.high and findings.of(doc).batches == (1,)
    assert len(table_rows(tables.ranges(doc))) == len(findings.of(doc).models)


def test_crosscheck_gap_is_open_only_without_the_held_column():
    doc = results.load(H200 / "bench-crosscheck.json")
    held = any(r.get("crosscheck", {}).get("timer_harness_blocks_ms") for r in doc["rows"])
    found = crosscheck_findings.of(doc)
    assert found.graphs.gap_open is not held and (found.graphs.held is not None) == held
    assert ("Timer, long blocks" in crosscheck_tables.crosscheck(doc)) == held


def test_crosscheck_checks_every_row_against_the_harness():
    doc = results.load(H200 / "bench-crosscheck.json")
    found = crosscheck_findings.of(doc)
    assert [(c.model, c.batch, c.mode) for c in found.checks] == [
        (r["model"], r["batch_size"], r["mode"]) for r in doc["rows"]]
    row, check = doc["rows"][0], found.checks[0]
    assert check.wall == row["crosscheck"]["wall_ms"]["median"] / row["latency_ms"]["median"]
    graphs = [c for c in found.checks if c.mode == "reduce-overhead"]
    assert found.graphs.rows == len(graphs) and found.others.rows == len(doc["rows"]) - len(graphs)
    assert found.graphs.wall == Span.of([c.wall for c in graphs])
    worst = max((c.wall for c in graphs), key=lambda w: abs(w - 1))
    assert (found.graphs.wall_agrees is crosscheck_findings.Agreement.WITHIN) == (
        abs(worst - 1) <= found.bar)
    assert found.others.noisy == sum(r["status"] == "noisy" for r in doc["rows"]
                                     if r["mode"] != "reduce-overhead")


def test_a_cpu_crosscheck_has_no_cuda_graph_rows():
    doc = results.load(ROOT / "docs/results/cpu-intel-xeon_torch-2.14.1/bench-crosscheck.json")
    found = crosscheck_findings.of(doc)
    assert found.graphs is None and found.others.rows == len(doc["rows"])
    # every row in one group: one column of readings beside the labels
    assert {len(cells) for cells in table_rows(crosscheck_tables.groups(doc))} == {2}
    assert found.others.thread_counts == tuple(sorted({
        r["crosscheck"]["harness_threads"] for r in doc["rows"]}))


def test_agreement_is_held_to_the_bar_either_way():
    bar = crosscheck_findings.cc.AGREE_WITHIN
    assert crosscheck_findings.agreement(1 - bar / 2) is crosscheck_findings.Agreement.WITHIN
    assert crosscheck_findings.agreement(1 + 2 * bar) is crosscheck_findings.Agreement.OUTSIDE


def test_widest_range_of_each_mode_is_its_highest_over_its_lowest():
    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    found = stability.of(runs)
    assert found.runs == len(runs)
    assert [w.mode for w in found.widest] == ["default", "reduce-overhead"]
    for w in found.widest:
        got = [v for _, doc in runs for r in doc["rows"]
               if (r["model"], r["batch_size"], r["mode"]) == (w.model, w.batch, w.mode)
               and (v := r.get("speedup"))]
        assert w.speedup == Span.of(got) and w.ratio == max(got) / min(got)
    spread = {cells[0]: cells[-1] for cells in table_rows(stability_tables.speedup_spread(runs))}
    assert all(float(v) <= max(w.ratio for w in found.widest) + 0.005 for v in spread.values())


def test_correlations_and_the_noisiest_group_come_from_the_runs():
    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    found = stability.of(runs)
    assert {c.model for c in found.correlations} == {"resnet50", "transformer"}
    assert all(-1 <= c.corr.low <= c.corr.high <= 1 for c in found.correlations)
    n = found.noisiest
    row = next(r for r in dict(runs)[n.label]["rows"]
               if (r["model"], r["batch_size"], r["mode"]) == (n.model, n.batch, "eager"))
    ratio = row["latency_ms"]["iqr"] / row["latency_ms"]["median"]
    assert all(r["latency_ms"]["iqr"] / r["latency_ms"]["median"] <= ratio
               for _, doc in runs for r in doc["rows"]
               if r["mode"] == "eager" and r.get("latency_ms"))
    assert n.slow == stability.SLOW


def test_later_compiles_are_read_only_from_an_empty_cache_run():
    doc = results.load(H200 / "bench.json")
    found = findings.of(doc)
    empty = bench.cache_state(doc["provenance"]["settings"]) == "empty"
    assert found.later_modes == (("reduce-overhead",) if empty else ())
    first = {}  # each group's first compile, which the later modes are read against
    for r in doc["rows"]:
        if r.get("compile_s") is not None:
            first.setdefault((r["model"], r["batch_size"]), r["compile_s"])
    ratios = [r["compile_s"] / first[r["model"], r["batch_size"]] for r in doc["rows"]
              if r["mode"] in found.later_modes]
    assert found.later_ratio == (Span.of(ratios) if empty else None)


def test_rows_too_close_to_call_are_the_gains_within_noise():
    doc = results.load(ROOT / "docs/results/cpu-amd-epyc_torch-2.14.1/bench.json")
    found = findings.of(doc)
    close = [g for g in found.gains if g.verdict is Verdict.WITHIN_NOISE]
    assert close and found.too_close == tuple(f"{g.model} · {g.batch} · {g.mode}" for g in close)


def test_the_reading_table_has_a_row_per_group_and_growth_only_with_two_batches():
    gpu = results.load(H200 / "bench.json")
    cpu = results.load(ROOT / "docs/results/cpu-amd-epyc_torch-2.14.1/bench.json")
    for doc, columns in ((gpu, 6), (cpu, 3)):
        got = table_rows(tables.reading(doc))
        assert len(got) == len(findings.of(doc).fastest) and {len(r) for r in got} == {columns}


def test_each_configuration_s_one_figure_is_the_median_over_the_runs_and_their_range():
    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    found = stability.of(runs).figures
    assert {f.mode for f in found} == {"default", "reduce-overhead"} and len(found) == 8
    for f in found:
        got = sorted(v for _, doc in runs for r in doc["rows"]
                     if (r["model"], r["batch_size"], r["mode"]) == (f.model, f.batch, f.mode)
                     and (v := r.get("speedup")))
        assert (f.runs, f.speedup) == (len(got), Span.of(got))
        assert f.median == statistics.median(got)
    # The spread table's Median column shows the same figures.
    spread = {cells[0]: cells[3] for cells in table_rows(stability_tables.speedup_spread(runs))}
    assert all(spread[f"{f.model} · {f.batch} · {f.mode}"] == f"{f.median:.2f}x" for f in found)
    assert len(table_rows(stability_tables.figures(runs))) == len(found)
    stated = stability.of(runs)
    for name, (model, batch, mode) in stability.STATED.items():
        f = getattr(stated, name)
        assert (f.model, f.batch, f.mode) == (model, batch, mode)
        assert f.key == f"{runs[0][1]['provenance']['device']} · {model} · batch {batch} · {mode}"


def test_the_widest_and_correlation_tables_hold_a_row_per_mode_and_per_model():
    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    assert len(table_rows(stability_tables.widest(runs))) == len(stability.widest(runs))
    shown = stability.host_runs(runs)
    assert len(table_rows(stability_tables.correlations(shown))) == len(
        stability.correlations(shown))
