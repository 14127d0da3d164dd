"""snippets.site.live: the registry of live sections matches the pages, every section has a record
made by its current code, and a build reads records without executing them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from snippets.site import build, cache, live

ROOT = Path(__file__).resolve().parents[2]


def test_every_live_section_a_page_shows_is_listed_and_every_listed_one_is_shown():
    shown = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        for name in re.findall(r'pages\.live\(("[^"]+"|agreement\.KIND)', page.read_text()):
            shown.append("explain-agreement" if name == "agreement.KIND" else name.strip('"'))
    assert shown == list(live.SECTIONS)  # the same sections, in the order pages show them


def test_every_live_section_has_a_record_made_by_its_current_code():
    """A stale record still renders, with what the old code gave: ``python -m
    snippets.site.produce`` records what changed (``--only NAME`` for one section)."""
    made = {json.loads(p.read_text())["meta"]["torch"]
            for p in build.Build().records_dir.glob("*.json")}
    if cache.device_type() != "cpu" or torch.__version__ not in made:
        pytest.skip(f"the records are of the CPU and torch {', '.join(sorted(made))}; this is "
                    f"{cache.device_type()} with torch {torch.__version__}")
    assert live.stale(build.Build()) == []


def test_a_record_is_read_and_checked_without_executing(tmp_path: Path, monkeypatch):
    b = build.Build(docs_dir=tmp_path, cache_dir=tmp_path / "cache", records_dir=tmp_path / "rec")
    calls = []

    def produce() -> dict:
        calls.append(1)
        return {"n": len(calls)}

    monkeypatch.setattr(live, "SECTIONS", {"one": produce, "two": list})
    meta = cache.record("live-one", produce, b, commit=None)
    assert calls == [1] and meta["device_type"] == cache.device_type()
    assert live.stale(b) == ["two"]
    value, got = live.value("one", b)
    assert value == {"n": 1} and got["record_key"] == meta["record_key"] and calls == [1]
    assert not (tmp_path / "cache").exists()  # a read writes nothing
    with pytest.raises(FileNotFoundError, match="snippets.site.produce --only two"):
        live.value("two", b)
    with pytest.raises(KeyError, match="no live section 'three'"):
        live.value("three", b)


def test_the_check_names_the_stale_sections_and_exits_1(monkeypatch, capsys):
    monkeypatch.setattr(live, "SECTIONS", {"never-recorded": dict})
    assert live.main(["--check"]) == 1
    assert capsys.readouterr().out == "stale: never-recorded\n"
    monkeypatch.setattr(live, "SECTIONS", {})
    assert live.main(["--check"]) == 0
