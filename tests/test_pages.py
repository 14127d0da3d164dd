"""snippets.pages and snippets.cache: recorded and fresh sections, the run folders, the cache."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path

import pytest
import torch

from snippets import cache, pages, render, sitecheck


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty docs folder and cache for this test; recorded build unless a test says otherwise."""
    monkeypatch.delenv("SNIPPETS_BUILD", raising=False)
    monkeypatch.delenv("SNIPPETS_REFRESH", raising=False)
    monkeypatch.setenv("SNIPPETS_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "docs" / "results").mkdir(parents=True)
    pages.use_docs_dir(tmp_path / "docs")
    yield tmp_path / "docs"
    pages.use_docs_dir(pages.ROOT / "docs")


@pytest.fixture
def counted(cpu_bench_run: Path):
    """A producer that hands back the real CPU run and counts how often it was asked."""
    calls = []

    def produce() -> dict:
        calls.append(1)
        return json.loads(cpu_bench_run.read_text())

    produce.calls = calls
    return produce


@pytest.mark.parametrize(("prov", "folder"), [
    ({"device": "NVIDIA H200", "device_type": "cuda", "torch": "2.11.0+cu130"},
     "nvidia-h200_torch-2.11.0"),
    ({"device": "CPU: AMD EPYC 7B13 64-Core Processor", "device_type": "cpu", "torch": "2.14.1"},
     "cpu-amd-epyc_torch-2.14.1"),
    ({"device": "CPU: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz", "device_type": "cpu",
      "torch": "2.14.1+cpu"}, "cpu-intel-xeon_torch-2.14.1"),
])
def test_run_folder(prov: dict, folder: str) -> None:
    assert pages.run_folder(prov) == folder


def test_no_recorded_run_gives_an_admonition(docs: Path) -> None:
    out = pages.show("bench", pages.bench_document, pages.bench_table, device="cuda")
    assert out.startswith('!!! note "No recorded run yet"')
    assert "<table" not in out and "|" not in out


def test_recorded_shows_the_newest_run_of_its_device(docs: Path, cpu_bench_run: Path) -> None:
    doc = json.loads(cpu_bench_run.read_text())
    folder = docs / "results" / pages.run_folder(doc["provenance"])
    folder.mkdir()
    shutil.copy(cpu_bench_run, folder / "bench.json")
    out = pages.show("bench", pages.bench_document, pages.bench_table, device="cpu")
    assert out.startswith('<div class="results" markdown>')
    assert render.markdown_table(doc["rows"]) in out
    assert '<p class="stamp">recorded: CPU: ' in out
    # a CPU run never fills a GPU section
    assert "No recorded run yet" in pages.show("bench", pages.bench_document, pages.bench_table)


def test_a_broken_results_file_stops_the_build(docs: Path) -> None:
    (docs / "results" / "somewhere").mkdir()
    (docs / "results" / "somewhere" / "bench.json").write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        pages.show("bench", pages.bench_document, pages.bench_table)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_fresh_on_cpu_measures_writes_and_caches(docs: Path, counted,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNIPPETS_BUILD", "fresh")
    out = pages.show("bench", counted, pages.bench_table, device="cpu")
    assert counted.calls == [1]
    assert '<p class="stamp">fresh: CPU: ' in out
    written = list((docs / "results").glob("*/bench.json"))
    assert [p.parent.name for p in written] == [
        pages.run_folder(json.loads(written[0].read_text())["provenance"])]
    stamp_before = written[0].stat().st_mtime_ns

    assert pages.show("bench", counted, pages.bench_table, device="cpu") == out
    assert counted.calls == [1]  # the cache answered
    assert written[0].stat().st_mtime_ns == stamp_before  # and nothing was rewritten

    monkeypatch.setenv("SNIPPETS_REFRESH", "1")
    pages.show("bench", counted, pages.bench_table, device="cpu")
    assert counted.calls == [1, 1]

    # the GPU section of a fresh CPU build measures nothing and shows what was recorded
    gpu = pages.show("bench", counted, pages.bench_table, device="cuda")
    assert counted.calls == [1, 1] and "No recorded run yet" in gpu


def test_live_is_cached_and_stamped(docs: Path) -> None:
    calls = []

    def produce() -> dict:
        calls.append(1)
        return {"graphs": len(calls)}

    first = pages.live("counts", produce, lambda v: f"graphs: {v['graphs']}")
    assert pages.live("counts", produce, lambda v: f"graphs: {v['graphs']}") == first
    assert calls == [1]
    assert f'<p class="stamp">{pages.LIVE_STAMP} on ' in first
    assert sitecheck.check_html(first.replace(" markdown>", ">")) == []


def test_cache_key_follows_configuration_and_imports(docs: Path) -> None:
    a = functools.partial(pages.bench_document, None)
    assert cache.cache_key("bench", a, "fresh") == cache.cache_key("bench", a, "fresh")
    b = functools.partial(pages.bench_document, "other")
    assert cache.cache_key("bench", a, "fresh") != cache.cache_key("bench", b, "fresh")
    assert cache.cache_key("bench", a, "fresh") != cache.cache_key("bench", a, "recorded")
    # bench is imported inside a function of pages; a change to it must still count
    assert {"snippets.bench", "snippets.measure", "snippets.models"} <= set(
        cache._module_files({"snippets.pages"}))


def test_build_mode_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNIPPETS_BUILD", "fersh")
    with pytest.raises(ValueError, match="SNIPPETS_BUILD='fersh'"):
        pages.build_mode()


def test_results_index_links_and_stamps_every_file(docs: Path, cpu_bench_run: Path) -> None:
    assert "No recorded run yet" in pages.results_index()
    (docs / "results" / "run-a").mkdir()
    shutil.copy(cpu_bench_run, docs / "results" / "run-a" / "bench.json")
    out = pages.results_index()
    assert "[bench.json](run-a/bench.json)" in out
    assert out.count('<p class="stamp">recorded: ') == 1
