"""Tests of the renderings over recorded runs: run-to-run stability and the findings under tables.

They read the results files committed under docs/results/, which are real runs; they assert on
structure (every configuration present, every round accounted for), never on the timings."""

from __future__ import annotations

import re
from pathlib import Path

from snippets.bench import crosscheck_tables, stability, tables
from snippets.core import results
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
    text = tables.findings(doc)
    groups = {(r["model"], r["batch_size"]) for r in doc["rows"]}
    assert len(re.findall(r"fastest is `", text)) == len(groups)


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


def test_headline_names_one_figure_once():
    doc = results.load(H200 / "bench.json")
    doc["rows"] = [r for r in doc["rows"] if r["batch_size"] == 1]
    text = tables.headline(doc)
    assert " to " not in text and "Batch size 1;" in text


def test_crosscheck_findings_say_the_timer_gap_is_open_without_the_held_column():
    doc = results.load(H200 / "bench-crosscheck.json")
    held = any(r.get("crosscheck", {}).get("timer_harness_blocks_ms") for r in doc["rows"])
    text = crosscheck_tables.crosscheck_findings(doc)
    assert ("This run does not say why" in text) != held
    assert ("Timer, long blocks ms" in crosscheck_tables.crosscheck(doc)) == held


def test_findings_of_an_empty_cache_run_say_later_compiles_reuse_the_cache():
    doc = results.load(H200 / "bench.json")
    said = "The run began with an empty Inductor cache" in tables.findings(doc)
    assert said == (tables.bench.cache_state(doc["provenance"]["settings"]) == "empty")


def test_calls_per_block_read_as_one_figure_where_all_blocks_agree():
    assert crosscheck_tables._calls([1, 1]) == "1 call"
    assert crosscheck_tables._calls([14, 87, 20]) == "14 to 87 calls"
    assert crosscheck_tables._calls([3]) == "3 calls"
