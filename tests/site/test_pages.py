"""snippets.site.pages, .cache and .build: recorded sections, run folders, live records, plots."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
from pathlib import Path

import pytest

from snippets import bench
from snippets.bench import tables
from snippets.core import folders, results, stamps
from snippets.site import build, cache, live, pages, reference, sitecheck


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """An empty docs folder for this test."""
    (tmp_path / "docs" / "results").mkdir(parents=True)
    return tmp_path / "docs"


@pytest.fixture
def recorded(docs: Path, tmp_path: Path) -> build.Build:
    """A build over ``docs`` with a cache and records of its own: nothing global is touched."""
    return build.Build(docs_dir=docs, cache_dir=tmp_path / "cache", records_dir=tmp_path / "rec")


@pytest.mark.parametrize(("prov", "folder"), [
    ({"device": "NVIDIA H200", "device_type": "cuda", "torch": "2.11.0+cu130"},
     "nvidia-h200_torch-2.11.0"),
    ({"device": "CPU: AMD EPYC 7B13 64-Core Processor", "device_type": "cpu", "torch": "2.14.1"},
     "cpu-amd-epyc_torch-2.14.1"),
    ({"device": "CPU: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz", "device_type": "cpu",
      "torch": "2.14.1+cpu"}, "cpu-intel-xeon_torch-2.14.1"),
])
def test_run_folder(prov: dict, folder: str) -> None:
    assert folders.run_folder(prov) == folder


def test_no_recorded_run_gives_an_admonition(recorded: build.Build) -> None:
    out = pages.show("bench", tables.table, device="cuda", build=recorded)
    assert out == pages.no_run_yet("bench", "cuda")
    note = (pages.INCLUDES / "no-run-yet.md").read_text()  # the include's own heading line
    assert out.splitlines()[0] == note.splitlines()[0]
    assert "<table" not in out and "|" not in out


def test_recorded_shows_the_newest_run_of_its_device(recorded: build.Build,
                                                     cpu_bench_run: Path) -> None:
    doc = json.loads(cpu_bench_run.read_text())
    folder = recorded.results_dir / folders.run_folder(doc["provenance"])
    folder.mkdir()
    shutil.copy(cpu_bench_run, folder / "bench.json")
    out = pages.show("bench", tables.table, device="cpu", build=recorded)
    assert out.startswith('<div class="results" markdown>')
    assert tables.markdown_table(doc["rows"]) in out
    assert '<p class="stamp">recorded: CPU: ' in out
    # a CPU run never fills a GPU section
    gpu = pages.show("bench", tables.table, device="cuda", build=recorded)
    assert gpu == pages.no_run_yet("bench", "cuda")


def test_a_broken_results_file_stops_the_build(recorded: build.Build) -> None:
    (recorded.results_dir / "somewhere").mkdir()
    (recorded.results_dir / "somewhere" / "bench.json").write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        pages.show("bench", tables.table, build=recorded)


def test_recorded_is_show() -> None:
    """The pages' name for a run recorded command by command reads the same way."""
    assert pages.recorded is pages.show


def test_live_renders_its_record_stale_or_not(recorded: build.Build, monkeypatch) -> None:
    calls = []

    def produce(n: int = 1) -> dict:
        calls.append(n)
        return {"graphs": n}

    monkeypatch.setattr(live, "SECTIONS", {"counts": produce})
    cache.record("live-counts", produce, recorded, commit="0123456789abcdef")
    first = pages.live("counts", lambda v: f"graphs: {v['graphs']}", build=recorded)
    assert calls == [1] and "graphs: 1" in first
    assert '<p class="stamp">recorded on ' in first and "commit 0123456789ab" in first
    assert sitecheck.check_html(first.replace(" markdown>", ">")) == []
    # The code changes: the build still renders the record and executes nothing; the check
    # names it stale.
    monkeypatch.setattr(live, "SECTIONS", {"counts": lambda: produce(2)})
    assert pages.live("counts", lambda v: f"graphs: {v['graphs']}", build=recorded) == first
    assert calls == [1] and live.stale(recorded) == ["counts"]


def test_a_record_key_follows_configuration_and_imports() -> None:
    a = bench.produce_on("cpu")
    assert cache.record_key("x", a) == cache.record_key("x", bench.produce_on("cpu"))
    assert cache.record_key("x", a) != cache.record_key("x", bench.produce_on("cpu", rounds=3))
    # a change to any module the producer imports, however deep, must count
    assert {"snippets.bench", "snippets.core.measure", "snippets.core.models",
            "snippets.explain"} <= set(cache._module_files({"snippets.bench"}))


def test_build_state_is_read_once_from_the_environment(tmp_path: Path) -> None:
    env = {"SNIPPETS_COMMIT": "abc", "SNIPPETS_CACHE_DIR": str(tmp_path)}
    got = build.Build.from_env(tmp_path / "docs", env)
    assert (got.commit, got.cache_dir) == ("abc", tmp_path)
    assert got.results_dir == tmp_path / "docs" / "results"
    assert build.Build.from_env(tmp_path / "docs", {}).commit is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.commit = "def"  # type: ignore[misc]


def test_a_plot_is_drawn_once_then_read_from_the_cache(recorded: build.Build) -> None:
    calls = []

    def draw(doc: dict) -> str:
        calls.append(doc["n"])
        return f'<figure class="plot">{doc["n"]}</figure>'

    first = pages.plot(draw, {"n": 1}, build=recorded)
    assert pages.plot(draw, {"n": 1}, build=recorded) == first and calls == [1]
    assert pages.plot(draw, {"n": 2}, build=recorded) != first and calls == [1, 2]


def test_compare_sets_two_recorded_files_side_by_side_stamped(recorded: build.Build) -> None:
    results_dir = Path(__file__).resolve().parents[2] / "docs" / "results"
    names = ("cpu-intel-xeon_torch-2.14.1/bench-compare.json",
             "cpu-amd-epyc_torch-2.14.1/bench.json")
    for name in names:
        (recorded.results_dir / name).parent.mkdir(exist_ok=True)
        shutil.copy(results_dir / name, recorded.results_dir / name)
    out = pages.compare("cpu-intel-xeon_torch-2.14.1/bench-compare.json",
                        "cpu-amd-epyc_torch-2.14.1/bench.json", build=recorded)
    assert '<p class="stamp">recorded: CPU: Intel' in out
    # One stamp names both runs: the one shown, then the one it is compared with.
    mine, other = (results.load(recorded.results_dir / name) for name in names)
    stamp = html.unescape(re.search(r'<p class="stamp">(.*)</p>', out).group(1))
    assert stamp == f"{stamps.stamp(mine, 'recorded')}, compared with {stamps.stamp(other)}"
    assert stamps.stamp(other).startswith("recorded: CPU: AMD")
    assert sitecheck.check_html(out.replace(" markdown>", ">")) == []


def _cli_anchors() -> set[str]:
    """The ids MkDocs gives the CLI reference's headings ("python -m snippets.speed" becomes
    "python-m-snippetsspeed"), by the toc extension's own slugify."""
    from markdown.extensions.toc import slugify

    root = Path(__file__).resolve().parents[2]
    heads = [line[3:].strip() for line in (root / "docs" / "cli.md").read_text().splitlines()
             if line.startswith("## ")]
    return {"cli/#" + slugify(h, "-") for h in heads}


def test_a_missing_run_names_its_data_and_links_the_commands_that_record_it() -> None:
    out = pages.no_run_yet("bench-ladder", "cuda")
    assert pages.RECORDED_BY["bench-ladder"][0] == "speed-ladder"  # what the page calls it
    assert pages.RECORDED_BY["bench-ladder"][0] in out  # the data, in the page's words for it
    assert out != pages.no_run_yet("bench-ladder", "cpu")  # and the device it is missing on
    # from the site's root, which the build turns into the way from the page it lands on
    assert f"[CLI reference]({pages.SITE_ROOT}cli/#python-m-snippetsspeed)" in out
    assert "bench-ladder" not in out  # the page's name for the data, never the kind
    # Every CLI section a note links to is a heading of the CLI reference.
    cli = {t for _words, t in pages.RECORDED_BY.values() if t.startswith("cli/")}
    assert cli <= _cli_anchors()


def test_a_debug_section_prints_the_minifier_command_help() -> None:
    assert "cli/#python-m-snippetsdebug" in _cli_anchors()
    assert "--minify" in reference.cli_help("debug")
