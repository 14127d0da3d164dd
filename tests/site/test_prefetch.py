"""snippets.site.live and .prefetch: the registry of live sections matches the pages, and an
entry one process is executing is waited for by another, not executed twice."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

from snippets.site import build, cache, live, pages, prefetch

ROOT = Path(__file__).resolve().parents[2]


def test_every_live_section_a_page_shows_is_listed_and_every_listed_one_is_shown():
    shown = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        for name in re.findall(r'pages\.live\(("[^"]+"|agreement\.KIND)', page.read_text()):
            shown.append("explain-agreement" if name == "agreement.KIND" else name.strip('"'))
    assert shown == list(live.SECTIONS)  # the same sections, in the order pages execute them


def test_an_entry_being_executed_elsewhere_is_waited_for(tmp_path: Path):
    b = build.Build(docs_dir=tmp_path, cache_dir=tmp_path / "cache")
    calls = []

    def produce():
        calls.append(1)
        return {"n": len(calls)}

    path = cache.entry_path("x", produce, b)
    lock = path.with_suffix(".lock")
    lock.parent.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    lock.write_text(str(holder.pid))  # another live process is executing the entry

    def holder_finishes():
        time.sleep(0.5)
        meta = {"name": "x", "key": "k", "device": "d", "torch": "t", "seconds": 0.5,
                "date": "2026-01-01T00:00:00+00:00"}
        path.write_text(json.dumps({"meta": meta, "value": {"n": "from the holder"}}))
        lock.unlink()

    writer = threading.Thread(target=holder_finishes)
    writer.start()
    try:
        value, meta = cache.cached("x", produce, b)
    finally:
        writer.join()
        holder.kill()
        holder.wait()
    assert value == {"n": "from the holder"} and meta["hit"] and calls == []


def test_a_lock_left_by_a_killed_process_is_taken_over(tmp_path: Path):
    b = build.Build(docs_dir=tmp_path, cache_dir=tmp_path / "cache")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    path = cache.entry_path("y", dict, b)
    path.parent.mkdir(parents=True)
    path.with_suffix(".lock").write_text(dead.stdout.strip())
    value, meta = cache.cached("y", dict, b)
    assert value == {} and not meta["hit"] and not path.with_suffix(".lock").exists()


def test_a_holder_that_hangs_is_overtaken_after_the_wait(tmp_path: Path, monkeypatch):
    b = build.Build(docs_dir=tmp_path, cache_dir=tmp_path / "cache")
    monkeypatch.setattr(cache, "WAIT_S", 0.3)
    path = cache.entry_path("h", dict, b)
    path.parent.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        path.with_suffix(".lock").write_text(str(holder.pid))  # alive, and never finishing
        value, meta = cache.cached("h", dict, b)
    finally:
        holder.kill()
        holder.wait()
    assert value == {} and not meta["hit"]


def test_a_waiting_process_reads_what_the_holder_wrote(tmp_path: Path):
    b = build.Build(docs_dir=tmp_path, cache_dir=tmp_path / "cache")
    calls = []

    def produce():
        calls.append(1)
        time.sleep(0.5)
        return {"n": len(calls)}

    got = []
    first = threading.Thread(target=lambda: got.append(cache.cached("z", produce, b)))
    first.start()
    time.sleep(0.1)  # the first call holds the lock and is executing
    value, meta = cache.cached("z", produce, b)
    first.join()
    assert calls == [1] and value == {"n": 1} and meta["hit"]


def test_nothing_is_prefetched_for_a_warm_or_refreshing_build(tmp_path: Path, monkeypatch):
    b = build.Build(docs_dir=tmp_path, cache_dir=tmp_path / "cache")
    monkeypatch.setattr(live, "SECTIONS", {"one": dict, "two": list})
    assert prefetch.missing(b) == ["one", "two"]
    for name, produce in live.SECTIONS.items():
        cache.cached(f"live-{name}", produce, b)
    assert prefetch.missing(b) == [] and prefetch.start(b) is None
    refreshing = build.Build(docs_dir=tmp_path, cache_dir=tmp_path / "other", refresh=True)
    assert prefetch.start(refreshing) is None


def test_the_prefetcher_fills_the_cache_in_its_own_process(tmp_path: Path):
    b = build.Build(docs_dir=tmp_path, cache_dir=tmp_path / "cache")
    name = "debug-registry"  # cheap: no compile, no child process
    assert prefetch.main(["--cache-dir", str(b.cache_dir), "--docs-dir", str(tmp_path), name]) == 0
    _, meta = cache.cached(f"live-{name}", live.producer(name), b)
    assert meta["hit"]


# ---- the live sections' records (live-sections/, committed) --------------------------------

def test_every_live_section_has_a_record_made_by_its_current_code():
    """A stale record costs a fresh clone's build the time of executing that section again:
    ``python -m snippets.site.live`` re-records what changed."""
    made = {json.loads(p.read_text())["meta"]["torch"]
            for p in build.Build().records_dir.glob("*.json")}
    if cache.device_type() != "cpu" or torch.__version__ not in made:
        pytest.skip(f"the records are of the CPU and torch {', '.join(sorted(made))}; this is "
                    f"{cache.device_type()} with torch {torch.__version__}")
    assert live.stale(build.Build()) == []


def test_a_record_serves_a_recorded_build_while_its_code_and_configuration_stand(tmp_path):
    b = build.Build(docs_dir=tmp_path, cache_dir=tmp_path / "cache", records_dir=tmp_path / "rec")
    calls = []

    def produce(n=1):
        calls.append(n)
        return {"n": n}

    meta = cache.record("live-x", produce, b, commit="0123456789abcdef")
    assert calls == [1] and meta["device_type"] == cache.device_type()
    value, got = cache.recorded("live-x", produce, b)
    assert value == {"n": 1} and got["hit"] and calls == [1]
    assert "commit 0123456789ab" in pages.live_stamp(got)
    assert pages.live_stamp(got).startswith("recorded on ")
    # Another configuration, a fresh build or a refreshing one executes instead.
    assert cache.recorded("live-x", functools.partial(produce, 2), b) is None
    for other in (build.Build(mode="fresh", records_dir=b.records_dir),
                  build.Build(refresh=True, records_dir=b.records_dir)):
        assert cache.recorded("live-x", produce, other) is None


def test_a_recorded_section_is_neither_prefetched_nor_executed(tmp_path, monkeypatch):
    b = build.Build(docs_dir=tmp_path, cache_dir=tmp_path / "cache", records_dir=tmp_path / "rec")
    monkeypatch.setattr(live, "SECTIONS", {"one": dict, "two": list})
    cache.record("live-one", dict, b, commit=None)
    assert prefetch.missing(b) == ["two"] and live.stale(b) == ["two"]
    value, meta = live.value("one", b)
    assert value == {} and "record_key" in meta and not list(b.cache_dir.glob("*"))


def test_recording_names_its_sections_and_refuses_an_unknown_one(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        live.main(["no-such-section"])
    assert exc.value.code == 2 and "no-such-section" in capsys.readouterr().err
