"""snippets.core.harness: the Benchmark page's whole harness returns its figures as data, on a CPU
(a tiny model, two rounds). No assertion on how long anything took."""

from __future__ import annotations

import statistics

import pytest
import torch
from torch import nn

from snippets.core import harness, measure


def test_rotated_starts_each_round_one_variant_later():
    names = ["eager", "default", "reduce-overhead"]
    assert [harness.rotated(names, k)[0] for k in range(4)] == [*names, "eager"]
    assert sorted(harness.rotated(names, 2)) == sorted(names)


def test_compare_returns_every_variants_figures():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()
    rows = harness.compare(model, torch.randn(2, 8), rounds=2, calls=1, warmup=1)
    assert list(rows) == ["eager", "default"]
    for row in rows.values():
        assert len(row["samples"]) == 2  # one sample per round
        assert row["median_ms"] == statistics.median(row["samples"])
    eager, compiled = rows["eager"], rows["default"]
    assert eager["speedup"] == 1.0 and "compile_s" not in eager
    assert compiled["speedup"] == pytest.approx(eager["median_ms"] / compiled["median_ms"])
    assert compiled["rel_err"] < 1e-5  # fp32: the compiled model computes eager's answer
    assert compiled["compile_s"] > 0


def test_the_package_times_with_the_harness():
    # the richer harness builds on the shown one: one timer, not two
    assert measure.time_calls is harness.time_calls
    assert measure.time_first_call is harness.time_first_call
