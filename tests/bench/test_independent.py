"""The independent timer: its findings against a benchmark run, and its command's errors."""

from __future__ import annotations

import pytest
import torch

from snippets.bench import independent
from snippets.bench.rows import new_row
from snippets.core import results


def _doc(kind: str, rows: list[dict]) -> dict:
    doc = results.new_document(kind, results.provenance(torch.device("cpu"), {}))
    doc["rows"] = rows
    return doc


def _lat(ms: float) -> dict:
    return {"median": ms, "iqr": 0.0, "samples": [ms]}


def test_each_configuration_alone_is_set_beside_the_harness_median():
    harness = _doc("bench", [new_row("m", 1, "reduce-overhead", latency_ms=_lat(1.0)),
                             new_row("m", 32, "reduce-overhead", latency_ms=_lat(2.0))])
    alone = [_doc(independent.KIND, [{"model": "m", "batch_size": b, "mode": "reduce-overhead",
                                       "status": "ok", "message": "", "latency_ms": _lat(ms),
                                       "calls_per_sample": 200}]) for b, ms in
             ((1, 1.01), (1, 0.99), (32, 2.2))]
    for doc in alone:
        results.validate(doc, kind=independent.KIND)
    checks = {c.batch: c for c in independent.of(harness, alone)}
    assert checks[1].alone_ms == (1.01, 0.99) and checks[1].ratio == pytest.approx(1.0)
    assert checks[1].agreement is independent.Agreement.AGREES
    assert checks[32].ratio == pytest.approx(2.0 / 2.2)
    assert checks[32].agreement is independent.Agreement.HARNESS_LOWER


def test_without_cuda_it_is_one_line_and_exit_2(tmp_path, capsys):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(SystemExit) as exit_:
        independent.main(["--model", "resnet50", "--batch-size", "1", "--mode", "eager",
                          "--output", str(tmp_path / "x.json")])
    assert exit_.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_the_recorded_processes_hold_every_cuda_graph_row_of_their_benchmark_run():
    from pathlib import Path

    harness, docs = independent.recorded(Path(__file__).resolve().parents[2] / "docs/results")
    graphed = {(r["model"], r["batch_size"]) for r in harness["rows"]
               if r["mode"] == "reduce-overhead"}
    checks = independent.of(harness, docs)
    assert {(c.model, c.batch) for c in checks} == graphed
    assert all(len(c.alone_ms) == 2 for c in checks)  # two processes each
    assert all(d["provenance"]["date"] > harness["provenance"]["date"] for d in docs)
    assert {d["provenance"]["settings"]["cudnn_benchmark"] for d in docs} == {
        harness["provenance"]["settings"]["cudnn_benchmark"]}  # the benchmark's own settings
