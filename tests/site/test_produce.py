"""snippets.site.produce: the one step that measures for the site; it produces what the pages
show for a device type, writes it where a build reads it, and refuses a name it does not know."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from snippets import dynamic
from snippets.core import folders
from snippets.core.topic import Producer
from snippets.debug import minifier
from snippets.explain import costs, fastpath
from snippets.site import build, live, produce

ROOT = Path(__file__).resolve().parents[2]
KINDS = {"dynamic.KIND": dynamic.KIND, "costs.KIND": costs.KIND,
         "fastpath.KIND": fastpath.KIND, "minifier.KIND": minifier.KIND}


def test_every_section_a_page_shows_has_its_producer_on_that_device():
    """``pages.show`` sections are the ones produce measures; the others are recorded by their
    own commands (``pages.recorded``)."""
    shown = set()
    for page in (ROOT / "docs").glob("*.md"):
        for kind, device in re.findall(r'pages\.show\(("[^"]+"|\w+\.KIND), [^\n]*?'
                                       r'(?:device="(\w+)")?\)\)\n', page.read_text()):
            shown.add((KINDS.get(kind, kind.strip('"')), device or "cuda"))
    made = {(kind, device) for kind, p in produce.RESULTS.items() for device in p.devices}
    assert shown == made


@pytest.fixture
def here(tmp_path: Path, monkeypatch) -> build.Build:
    """produce's build pointed at a temporary docs folder and records."""
    b = build.Build(docs_dir=tmp_path / "docs", records_dir=tmp_path / "rec")
    monkeypatch.setattr(produce, "Build", lambda: b)
    return b


def test_a_run_is_written_to_its_run_folder(here: build.Build, cpu_bench_run: Path, monkeypatch):
    doc = json.loads(cpu_bench_run.read_text())
    asked = []
    monkeypatch.setattr(produce, "RESULTS", {"bench": Producer(("cpu", "cuda"), lambda device: (
        lambda *, commit: asked.append((device, commit)) or doc))})
    path = produce.produce_results("bench", "cpu", here.results_dir, "abc123")
    assert asked == [("cpu", "abc123")]
    assert path == here.results_dir / folders.run_folder(doc["provenance"]) / "bench.json"
    assert json.loads(path.read_text()) == doc
    with pytest.raises(ValueError, match="produced on cpu, asked for cuda"):
        produce.produce_results("bench", "cuda", here.results_dir, None)


def test_list_names_the_results_and_the_stale_sections(here: build.Build, monkeypatch, capsys):
    monkeypatch.setattr(live, "SECTIONS", {"one": dict})
    assert produce.main(["--device", "cpu", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{k}: results on cpu" for k in produce.results_for("cpu")] + [
        "one: live section (stale)"]


def test_only_records_the_sections_named(here: build.Build, monkeypatch, capsys):
    monkeypatch.setattr(live, "SECTIONS", {"one": lambda: {"n": 1}, "two": dict})
    assert produce.main(["--device", "cpu", "--only", "one"]) == 0
    assert capsys.readouterr().out.startswith("one: ")
    assert live.value("one", here)[0] == {"n": 1} and live.stale(here) == ["two"]


@pytest.mark.parametrize(("argv", "says"), [
    (["--device", "cpu", "--only", "bench,nope"], "--only 'nope': not produced on cpu"),
    (["--device", "cpu", "--only", "bench-channels-last"], "'bench-channels-last'"),
    (["--device", "tpu"], "unknown device 'tpu'"),
])
def test_a_mistake_is_one_line_and_exit_2(argv, says, here, capsys):
    with pytest.raises(SystemExit) as exc:
        produce.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and says in err and len(err.strip().splitlines()) == 1


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_asked_for_without_cuda_is_a_mistake(here, capsys):
    with pytest.raises(SystemExit) as exc:
        produce.main(["--device", "cuda", "--list"])
    assert exc.value.code == 2 and "no CUDA device" in capsys.readouterr().err


def test_live_sections_are_recorded_on_a_cpu_machine_only(monkeypatch):
    """Their records are keyed by the machine's device type and checked on a CPU: a GPU machine
    asked for the CPU results records none."""
    monkeypatch.setattr(live, "SECTIONS", {"one": dict})
    monkeypatch.setattr(produce.cache, "device_type", lambda: "cuda")
    assert produce.sections_for("cpu") == produce.sections_for("cuda") == []
    monkeypatch.setattr(produce.cache, "device_type", lambda: "cpu")
    assert produce.sections_for("cpu") == ["one"]
