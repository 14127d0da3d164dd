"""Tests of the renderings over recorded runs: run-to-run stability and the findings under tables.

They read the results files committed under docs/results/, which are real runs; they assert on
structure (every configuration present, every round accounted for), never on the timings."""

from __future__ import annotations

from pathlib import Path

from snippets import bench
from snippets.bench import crosscheck_tables, findings, stability
from snippets.core import results
from snippets.core.findings import Verdict
from snippets.site import pages
from snippets.site.build import Build
from tests.markdown import table_rows

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "docs/results/nvidia-h200_torch-2.11.0"


def test_speedup_spread_lists_every_compiled_configuration_of_every_run():
    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    assert len(runs) >= 2 and runs[0][0] == "bench"
    text = stability.speedup_spread(runs)
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
    table = table_rows(stability.spells(doc, row["model"], row["batch_size"]))
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


def test_the_h200_run_is_host_bound_in_eager_and_every_mode_pays():
    found = findings.of(results.load(H200 / "bench.json"))
    assert {g.model: g.bound for g in found.growth} == {
        "resnet50": findings.Bound.HOST, "transformer": findings.Bound.HOST}
    assert all(g.verdict is Verdict.PAYS for g in found.gains) and not found.within_noise
    assert (found.rows, found.noisy, found.failed) == (12, 0, 0)


def test_runs_stamp_names_one_date_once_and_commits_at_one_length():
    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    one = stability.runs_stamp(runs[:1])
    assert " · 1 run, " in one and " to " not in one and " · commit " in one
    commits = stability.runs_stamp(runs).rpartition("commits ")[2].split(", ")
    assert all(len(c) <= 12 for c in commits)


def test_host_evidence_is_stamped_with_the_runs_it_shows():
    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    body, used = stability.evidence("host", runs)
    shown = {cells[0].split(" · ")[0] for cells in table_rows(body)}
    assert shown == {label for label, _ in used}


def test_spells_label_a_round_by_every_host_bound_variant():
    rows = {("m", 1, "eager"): {"latency_ms": {"samples": [1, 2, 2, 1]}},
            ("m", 1, "default"): {"latency_ms": {"samples": [1, 1, 2, 1]}},
            ("m", 1, "reduce-overhead"): {"latency_ms": {"samples": [1, 1, 1, 1]}}}
    states = stability._round_states(rows, ["eager", "default", "reduce-overhead"], "m", 1)
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


def test_crosscheck_findings_say_the_timer_gap_is_open_without_the_held_column():
    doc = results.load(H200 / "bench-crosscheck.json")
    held = any(r.get("crosscheck", {}).get("timer_harness_blocks_ms") for r in doc["rows"])
    text = crosscheck_tables.crosscheck_findings(doc)
    assert ("This run does not say why" in text) != held
    assert ("Timer, long blocks ms" in crosscheck_tables.crosscheck(doc)) == held


def test_later_compiles_are_read_only_from_an_empty_cache_run():
    doc = results.load(H200 / "bench.json")
    later = findings.of(doc).later_compiles
    empty = bench.cache_state(doc["provenance"]["settings"]) == "empty"
    assert bool(later) == empty
    assert [c.mode for c in later] == (["default", "reduce-overhead"][1:] if empty else [])


def test_calls_per_block_read_as_one_figure_where_all_blocks_agree():
    assert crosscheck_tables._calls([1, 1]) == "1 call"
    assert crosscheck_tables._calls([14, 87, 20]) == "14 to 87 calls"
    assert crosscheck_tables._calls([3]) == "3 calls"
