"""cudnn.benchmark measured one process per setting: the findings read from the recorded files."""

from __future__ import annotations

from pathlib import Path

from snippets.core import results
from snippets.speed import fresh
from tests.markdown import table_rows

ROOT = Path(__file__).resolve().parents[2]


def test_each_configuration_holds_one_median_per_process_and_setting():
    docs = fresh.recorded(ROOT / "docs" / "results")
    on = [d for d in docs if d["provenance"]["settings"]["cudnn_benchmark"]]
    assert docs and len(on) * 2 == len(docs)  # as many processes with it on as off
    found = fresh.of(docs)
    assert found.processes == len(docs)
    for p in found.points:
        assert len(p.off_ms) == len(p.on_ms) == len(on)
        assert p.pairs == len(on) and 0 <= p.off_faster <= p.pairs
        assert p.better is (fresh.Better.OFF if p.off_faster == p.pairs else fresh.Better.ON
                            if p.off_faster == 0 else fresh.Better.MIXED)
    first = docs[0]["rows"][0]
    point = next(p for p in found.points if (p.model, p.batch, p.mode) == (
        first["model"], first["batch_size"], first["mode"]))
    off = not docs[0]["provenance"]["settings"]["cudnn_benchmark"]
    assert (point.off_ms if off else point.on_ms)[0] == first["latency_ms"]["median"]


def test_processes_alternate_and_the_replay_favours_one_setting_in_every_pair():
    docs = fresh.recorded(ROOT / "docs" / "results")
    flags = [d["provenance"]["settings"]["cudnn_benchmark"] for d in docs]
    assert flags == [False, True] * (len(docs) // 2)  # off, on, off, on, ... in time
    assert all(results.device_type_of(d) == "cuda" for d in docs)
    assert fresh.of(docs).better_in_every_pair("reduce-overhead") is fresh.Better.OFF


def test_the_table_names_the_setting_that_won_more_pairs():
    def point(off_faster: int) -> fresh.Point:
        return fresh.Point("m", 1, "default", (1.0,) * 4, (2.0,) * 4, off_faster,
                           fresh.Better.MIXED)

    points = (point(0), point(3), point(2))
    assert [p.won for p in points] == [(fresh.Better.ON, 4), (fresh.Better.OFF, 3),
                                       (fresh.Better.MIXED, 2)]
    assert len(table_rows(fresh.table(fresh.Fresh(points, 8)))) == 3


def test_the_replay_and_every_mode_name_the_setting_every_pair_favoured():
    def point(mode: str, better: fresh.Better) -> fresh.Point:
        return fresh.Point("m", 1, mode, (1.0,), (2.0,), 1, better)

    on = fresh.Fresh(tuple(point(m, fresh.Better.ON)
                           for m in ("eager", "default", "reduce-overhead")), 2)
    assert (on.replay, on.every_mode) == (fresh.Better.ON, fresh.Better.ON)
    split = fresh.Fresh((point("eager", fresh.Better.OFF), point("default", fresh.Better.ON),
                         point("reduce-overhead", fresh.Better.OFF)), 2)
    assert (split.replay, split.every_mode) == (fresh.Better.OFF, None)
