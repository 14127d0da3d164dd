"""snippets.site.migrate: an old file comes to the current schema once, its values untouched."""

from __future__ import annotations

import copy
import json

import torch

from snippets.bench.rows import new_row
from snippets.core import results
from snippets.site import migrate


def _old_bench() -> dict:
    """A benchmark file as first recorded: no kind, no device type, no count of the cache."""
    doc = results.new_document("bench", results.provenance(torch.device("cpu"), {"x": 1}))
    del doc["kind"], doc["provenance"]["device_type"], doc["provenance"]["host_cpu"]
    lat = {"median": 1.0, "iqr": 0.1, "samples": [1.0, 1.1]}
    doc["rows"].append(new_row("m", 1, "max-autotune", latency_ms=lat))
    doc["rows"][0]["autotune"] = [
        {"op": "convolution", "library": {"name": "convolution", "kernel_ms": 0.2},
         "template": {"name": "triton_conv", "kernel_ms": 0.3}},
        {"op": "addmm", "library": {"name": "addmm", "kernel_ms": 0.2},
         "template": {"name": "triton_mm", "kernel_ms": 0.3}}]
    return doc


def test_an_old_file_takes_the_current_schema_and_keeps_its_values():
    old = _old_bench()
    doc = copy.deepcopy(old)
    assert migrate.migrate(doc, "2026-01-01")
    results.validate(doc)
    prov = doc["provenance"]
    assert (doc["kind"], prov["device_type"], prov["host_cpu"]) == ("bench", "cpu", None)
    assert prov["settings"]["inductor_cache"] is None and prov["settings"]["x"] == 1
    assert [op.get("retimed_by") for op in doc["rows"][0]["autotune"]] == ["profiler", None]
    assert doc["rows"][0]["latency_ms"] == old["rows"][0]["latency_ms"]
    assert prov["migrations"] == [
        {"name": migrate.NAME, "date": "2026-01-01", "changed": [
            "kind_named", "host_fields", "cache_uncounted", "retimed_by_profiler"]},
        {"name": migrate.MIGRATIONS[1][0], "date": "2026-01-01", "changed": []}]


def test_a_kind_recorded_under_another_schema_name_takes_its_own():
    doc = results.new_document("graph-breaks",
                               results.provenance(torch.device("cpu"), {}))
    doc["schema"] = "snippets.explain/1"
    migrate.migrate(doc, "2026-01-01")
    assert results.kind_of(doc).name == "graph-breaks"


def test_a_train_row_without_a_pool_says_none_was_measured():
    doc = results.new_document("train", results.provenance(torch.device("cpu"), {}))
    doc["rows"].append({"variant": "reduce-overhead"})
    migrate.migrate(doc, "2026-01-01")
    assert doc["rows"][0] == {"variant": "reduce-overhead", "graph_pool_mb": None,
                              "graph_pool_shared_with": []}


def test_a_profile_names_the_ranges_it_counted_among_its_kernels():
    doc = results.new_document("train", results.provenance(torch.device("cpu"), {}))
    top = [{"name": "Optimizer.step#AdamW.step", "share": 0.5}, {"name": "gemm", "share": 0.1}]
    doc["rows"] += [{"variant": "eager", "profile": {"busy_us_per_call": 1.0, "top": top}},
                    {"variant": "model", "profile": {"busy_us_per_call": 1.0, "top": top[1:]}}]
    doc["provenance"]["migrations"] = [{"name": migrate.NAME, "date": "2026-01-01",
                                        "changed": []}]  # the first migration ran already
    assert migrate.migrate(doc, "2026-01-02")
    assert [r["profile"]["annotations"] for r in doc["rows"]] == [
        ["Optimizer.step#AdamW.step"], []]
    assert [m["changed"] for m in doc["provenance"]["migrations"]] == [[], ["annotations_named"]]
    assert doc["rows"][0]["profile"]["top"] == top  # the values stay as they were


def test_migrating_twice_changes_nothing(tmp_path):
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(_old_bench()))
    assert migrate.main([str(tmp_path)]) == 0
    once = path.read_text()
    assert migrate.main([str(tmp_path)]) == 0
    assert path.read_text() == once
    assert len(json.loads(once)["provenance"]["migrations"]) == len(migrate.MIGRATIONS)
