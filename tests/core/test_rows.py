"""Typed rows and the one finishing step every timed producer shares."""

from __future__ import annotations

import math

import torch

from snippets.bench.rows import new_row
from snippets.core import measure, results, rows, stamps


def test_finish_sets_rate_speedup_and_noise_once():
    base = measure.Measurement((2.0, 2.0, 2.0, 2.0))
    m = measure.Measurement((1.0, 1.0, 1.5, 1.0))  # IQR 0.125 of a median of 1.0: noisy
    row = rows.finish(new_row("m", 1, "default"), m, calls=7, baseline=base, flops=4e9,
                      peak_tflops=100.0)
    assert row["latency_ms"]["samples"] == [1.0, 1.0, 1.5, 1.0]
    assert row["calls_per_sample"] == 7
    assert math.isclose(row["tflops"], 4.0)  # 4 GFLOP in 1 ms
    assert math.isclose(row["pct_of_peak"], 4.0)
    assert math.isclose(row["speedup"], 2.0)
    assert row["status"] == rows.Status.NOISY.value


def test_finish_without_baseline_or_flops_leaves_them_unset():
    m = measure.Measurement((1.0, 1.0, 1.0))
    row = rows.finish({"status": "mismatch"}, m, calls=1, field="step_ms")
    assert row["step_ms"]["median"] == 1.0 and row["tflops"] is None
    assert "speedup" not in row and row["status"] == "mismatch"  # only ok rows turn noisy


def test_typed_rows_key_status_and_measurement():
    doc = results.new_document("bench", results.provenance(torch.device("cpu"), {}))
    doc["rows"] = [new_row("resnet50", 32, "eager", latency_ms={"median": 2.0, "iqr": 0.0,
                                                                "samples": [2.0]}),
                   new_row("resnet50", 32, "default", status="oom", message="out of memory")]
    eager, oom = results.typed_rows(doc)
    assert eager.key == rows.Key("cpu", "resnet50", 32, "eager")
    assert eager.timed and eager.median == 2.0
    assert oom.status is rows.Status.OOM and not oom.timed and oom.median is None


def test_typed_rows_read_the_variant_and_timing_their_kind_declares():
    from snippets.generate.kinds import LADDER  # a kind whose variant is a rung, timed per step

    doc = results.new_document(LADDER.name, results.provenance(torch.device("cpu"), {}))
    step = {"median": 3.0, "iqr": 0.0, "samples": [3.0]}
    doc["rows"] = [{"model": "m", "batch_size": 1, "rung": "fused", "mode": "default",
                    "status": "ok", "step_ms": step, "latency_ms": {"median": 9.0}}]
    (row,) = results.typed_rows(doc)
    assert (LADDER.variant, LADDER.timing) == ("rung", "step_ms")
    assert row.key.variant == "fused" and row.median == 3.0  # not the mode, not the latency


def test_fault_takes_the_line_after_inductors_where():
    exc = RuntimeError("backend='inductor' raised:\nCUDA out of memory. Tried to allocate")
    assert rows.fault(exc)[0] == "oom"
    status, message = rows.fault(ValueError("bad\nmore"))
    assert (status, message) == ("error", "ValueError: bad")


def _r(variant: str, part: int | None = None, model: str = "m") -> dict:
    return {"model": model, "batch_size": 1, "variant": variant,
            **({"part": part} if part is not None else {})}


def test_a_group_s_runs_stand_in_blocks_each_paired_where_its_own_baseline_is_kept():
    found = [_r("eager"), _r("a"), _r("b", 2), _r("eager", 1), _r("c", 1), _r("eager", None, "n")]
    placed = rows.in_runs(found, lambda r: r["variant"] == "eager")
    assert [(p.row["variant"], p.row["model"], p.run, p.runs, p.paired) for p in placed] == [
        ("eager", "m", 1, 3, True), ("a", "m", 1, 3, True), ("b", "m", 2, 3, False),
        ("eager", "m", 3, 3, True), ("c", "m", 3, 3, True), ("eager", "n", 1, 1, True)]
    assert [p.tag for p in placed] == ["", "", "command 2", "command 3", "command 3", ""]
    assert rows.own_baseline(found, found[4], lambda r: r["variant"] == "eager") is found[3]
    assert rows.own_baseline(found, found[2], lambda r: r["variant"] == "eager") is None


def test_every_share_of_peak_is_against_the_one_peak_a_file_prints():
    prov = {"peak_bf16_tflops": 800.0, "parts": [{"peak_bf16_tflops": 800.0},
                                                  {"peak_bf16_tflops": 700.0}]}
    row = {"tflops": 80.0, "pct_of_peak": 80.0 / 700.0 * 100, "part": 1}  # its command's own
    assert rows.pct_of_peak(row, prov) == 10.0
    assert rows.printed_peak({**prov, "ceilings": {"matmul_tflops": 400.0}}) == 400.0
    assert rows.pct_of_peak({"tflops": None}, prov) is None
    stamp = stamps.stamp(
        {"provenance": {**results.provenance(torch.device("cpu"), {}, commit="c"), **prov},
         "rows": [], "complete": True})
    # the stamp names the peak the file prints, not the one a later command measured
    assert f"{rows.printed_peak(prov):.0f}" in stamp and "700" not in stamp
