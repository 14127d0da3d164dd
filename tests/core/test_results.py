"""snippets.core.results: one way to make, check, read and stamp a document of every kind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from snippets.bench.rows import new_row
from snippets.core import machine, parts, results, stamps
from snippets.site import topics

ROOT = Path(__file__).resolve().parents[2]
RECORDED = sorted((ROOT / "docs" / "results").rglob("*.json"))


def _doc() -> dict:
    doc = results.new_document("bench",
                               results.provenance(torch.device("cpu"), {"dtype": "fp32"}))
    doc["rows"].append(new_row("m", 1, "eager", latency_ms={"median": 1.0, "iqr": 0.1,
                                                                "samples": [1.0, 1.1]}))
    return doc


def test_schema_round_trip(tmp_path):
    doc = _doc()
    path = tmp_path / "r.json"
    results.write_atomic(path, doc)
    assert results.load(path) == doc
    assert not list(tmp_path.glob(".r.json.*"))  # no temporary file left behind


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(schema="other/9"), "schema"),
    (lambda d: d["provenance"].pop("torch"), "provenance"),
    (lambda d: d["rows"][0].pop("speedup"), "lacks 'speedup'"),
    (lambda d: d["rows"][0].update(batch_size="1"), "wrong type"),
    (lambda d: d["rows"][0].update(status="great"), "status"),
    (lambda d: d["rows"][0].update(latency_ms={"median": 1.0}), "latency_ms"),
])
def test_validate_names_the_problem(mutate, message):
    doc = _doc()
    mutate(doc)
    with pytest.raises(results.ResultsError, match=message):
        results.validate(doc)


def test_every_kind_has_its_own_schema_name():
    assert topics.KINDS is results.KINDS  # gathered from the topics, which declare them
    schemas = [k.schema for k in results.KINDS.values()]
    assert len(set(schemas)) == len(schemas)
    for name, kind in results.KINDS.items():
        doc = results.new_document(name, {})
        assert (doc["schema"], doc["kind"], doc["rows"], doc["complete"]) == (
            kind.schema, name, [], False)


def test_the_core_declares_no_kind():
    """Every kind is a topic's: importing the whole core declares none (a fresh process, since
    this one has imported the topics)."""
    code = ("import importlib, pkgutil, snippets.core as c\n"
            "for m in pkgutil.iter_modules(c.__path__):\n"
            "    importlib.import_module(f'snippets.core.{m.name}')\n"
            "from snippets.core import results\n"
            "assert results.KINDS == {}, sorted(results.KINDS)\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_a_kind_is_declared_once():
    bench = results.KINDS["bench"]
    assert results.declare(bench) is bench  # a module imported twice declares the same kind
    for twin in (results.Kind("bench", "snippets.other/1"), results.Kind("other", bench.schema)):
        with pytest.raises(ValueError, match="declared twice"):
            results.declare(twin)
    assert "other" not in results.KINDS


def test_a_document_of_another_kind_is_refused_by_name():
    doc = _doc()
    with pytest.raises(results.ResultsError, match="expected 'snippets.dynamic/1'"):
        results.validate(doc, kind="dynamic-shapes")


@pytest.mark.parametrize("path", RECORDED, ids=[p.relative_to(ROOT).as_posix() for p in RECORDED])
def test_every_committed_results_file_loads_as_its_kind(path):
    doc = results.load(path)
    kind = results.kind_of(doc)
    assert kind is not None and kind.measured
    assert results.device_type_of(doc) in ("cuda", "cpu")


def test_a_document_is_of_the_kind_it_names_under_that_kinds_schema():
    doc = json.loads((ROOT / "docs/results/cpu-amd-epyc_torch-2.14.1/graph-breaks.json")
                     .read_text())
    assert results.kind_of(doc).name == "graph-breaks"
    for wrong in ({"kind": "explain-causes"}, {"schema": "snippets.explain/1"}, {"kind": None}):
        with pytest.raises(results.ResultsError, match="schema"):
            results.validate({**doc, **wrong})
    del doc["provenance"]["device_type"]
    with pytest.raises(results.ResultsError, match="provenance must hold"):
        results.validate(doc)


def test_provenance_records_the_device_and_the_commit_given():
    prov = results.provenance(torch.device("cpu"), {"x": 1}, commit="abc123")
    assert prov["commit"] == "abc123" and prov["device"].startswith("CPU: ")
    assert prov["device_type"] == "cpu" and prov["cuda"] is None and prov["settings"] == {"x": 1}
    assert all(k in prov for k in results.PROVENANCE_FIELDS)


def test_stamp_says_where_with_what_and_how():
    doc = _doc()
    doc["provenance"]["commit"] = "abc123"
    text = stamps.stamp(doc, "fresh")
    assert text.startswith("fresh (incomplete run): CPU: ")
    assert "torch " in text and "fp32" in text and "commit abc123" in text
    doc["complete"] = True
    assert stamps.stamp(doc).startswith("recorded: CPU: ")


def test_a_stamp_names_the_modes_that_ran_with_the_cudnn_autotuner():
    on, off = {"cudnn_benchmark": True}, {"cudnn_benchmark": False}
    words = stamps._settings_words  # noqa: SLF001 (the stamp's settings, without the rest)
    assert words({"cudnn_benchmark": True}) == ["cudnn.benchmark"]
    assert words({"cudnn_benchmark": True, "mode_backends": {"eager": off, "default": on}}) \
        == ["cudnn.benchmark for default"]
    assert words({"cudnn_benchmark": True, "mode_backends": {"eager": off}}) \
        == ["no cudnn.benchmark"]
    assert words({"cudnn_benchmark": True, "mode_backends": {"eager": on}}) \
        == ["cudnn.benchmark"]


def test_a_stamp_says_the_weights_dtype_where_bf16_variants_autocast():
    words = stamps._settings_words  # noqa: SLF001
    assert words({"dtype": "fp32", "variants": ["eager", "eager-bf16"]}) \
        == ["fp32 weights, bf16 autocast"]
    assert words({"dtype": "fp32", "variants": ["eager"]}) == ["fp32"]


def test_a_run_note_is_kept_in_the_provenance_its_part_and_the_stamp(monkeypatch):
    note = "two runs at once, a GPU and 16 cores each"  # what the person running it says
    monkeypatch.setenv(results.NOTE_ENV, note)
    noted = results.provenance(torch.device("cpu"), {"models": ["b"]}, commit="b")
    monkeypatch.delenv(results.NOTE_ENV)
    plain = results.provenance(torch.device("cpu"), {"models": ["a"]}, commit="a")
    assert "note" not in plain and noted["note"] == note
    prov, part = parts.add_part(plain, noted, ran=("models",))
    assert "note" not in prov["parts"][0] and prov["parts"][part]["note"] == noted["note"]
    doc = {**results.new_document("bench", prov), "complete": True}
    assert stamps.stamp(doc).endswith(f"note: {note}")
    assert " · commits a, b · " in stamps.stamp(doc)  # each command's commit, not the first's


def test_the_cores_recorded_are_those_the_run_may_use():
    import os

    from snippets.core import machine
    assert machine.usable_cores() == len(os.sched_getaffinity(0))


def test_stamps_show_a_commit_at_twelve_digits_and_keep_dirty():
    assert stamps.short_commit("0123456789abcdef0123") == "0123456789ab"
    assert stamps.short_commit("0123456789ab-dirty") == "0123456789ab-dirty"
    assert stamps.short_commit(None) == "unknown"


def test_one_stamp_for_several_documents_names_each_day_span_and_commit_once():
    docs = [{"provenance": {"date": f"2026-01-0{d}T10:00:00", "commit": c}}
            for d, c in ((2, "a" * 40), (1, "a" * 40), (3, "b" * 20))]
    text = stamps.several(docs, "recorded", ["GPU", "torch 2"], "3 processes")
    assert text.startswith("recorded: GPU · torch 2 · 3 processes, ")
    assert "2026-01-01 to 2026-01-03" in text and text.endswith(f"commits {'a' * 12}, {'b' * 12}")
    one = stamps.several(docs[:1], "recorded", [], "1 run")
    assert " to " not in one and one.endswith(f"commit {'a' * 12}")


def test_device_label_drops_the_cpu_prefix_only_on_a_cpu():
    assert stamps.device_label({"device": "CPU: AMD EPYC", "device_type": "cpu"}) == "AMD EPYC"
    assert stamps.device_label({"device": "NVIDIA H200", "device_type": "cuda"}) == "NVIDIA H200"


def test_join_adds_a_command_s_rows_as_a_block_and_replaces_only_a_block_measured_again():
    def doc(date: str, *rows: tuple[str, str]) -> dict:
        prov = results.provenance(torch.device("cpu"), {"modes": []}, commit="c")
        return {**results.new_document("bench", {**prov, "date": date}), "complete": True,
                "rows": [{"model": m, "batch_size": 1, "mode": v} for m, v in rows]}

    def key(r: dict) -> tuple:
        return r["model"], r["batch_size"], r["mode"]

    first = doc("d1", ("a", "eager"), ("a", "default"), ("b", "eager"), ("b", "default"))
    later = doc("d2", ("a", "eager"), ("a", "max-autotune"), ("b", "eager"), ("b", "default"))
    joined = results.join(first, later, key, ran=("modes",))
    # Model a's first block is not covered by the later one, so both stay; b's is, so it goes.
    assert [(r["model"], r["mode"], r["part"]) for r in joined["rows"]] == [
        ("a", "eager", 0), ("a", "default", 0),
        ("a", "eager", 1), ("a", "max-autotune", 1), ("b", "eager", 1), ("b", "default", 1)]
    assert [p["date"] for p in joined["provenance"]["parts"]] == ["d1", "d2"]
    assert joined["complete"]


def test_a_cpu_run_records_its_capability_and_its_stamp_shows_it():
    prov = results.provenance(torch.device("cpu"), {}, commit="c")
    cap = prov["cpu_capability"]
    assert set(cap) == {"capability", "avx512_bf16", "amx_tile", "amx_bf16"}
    assert cap["capability"] == torch.backends.cpu.get_cpu_capability()
    doc = results.new_document("bench", {**prov, "cpu_capability": {
        "capability": "AVX512", "avx512_bf16": True, "amx_tile": False, "amx_bf16": False}})
    assert " · AVX512 kernels, avx512_bf16, no AMX · " in stamps.stamp(doc)
    # A file recorded before the capability was: nothing said, rather than a guess.
    del doc["provenance"]["cpu_capability"]
    assert "kernels" not in stamps.stamp(doc)


def test_cpu_flags_say_which_bf16_a_cpu_has_in_hardware():
    amx = machine.cpu_capability(frozenset({"avx512f", "avx512_bf16", "amx_tile", "amx_bf16"}))
    assert amx["amx_tile"] and machine.bf16_in_hardware(amx)
    avx2 = machine.cpu_capability(frozenset({"avx2"}))
    assert avx2["avx512_bf16"] is False and not machine.bf16_in_hardware(avx2)


def test_tuned_configs_reads_each_best_config_by_its_kernel_s_name_without_timings(
        tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / "k1.best_config").write_text(
        '{"XBLOCK": 2, "num_warps": 8, "found_by_coordesc": true, "time_taken_ms": 3}')
    (tmp_path / "ab" / "k2.best_config").write_text("not json")  # one torn file is skipped
    assert machine.tuned_configs() == {
        "k1": {"XBLOCK": 2, "num_warps": 8, "found_by_coordesc": True}}
