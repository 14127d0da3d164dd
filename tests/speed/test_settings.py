"""The settings grid, and what its verdicts and chosen defaults make of made-up documents."""

from __future__ import annotations

import pytest
import torch

from snippets.speed import settings

from .docs_fixtures import doc, point


def test_the_grid_turns_tf32_only_for_fp32():
    assert len(settings.grid("fp32")) == 4 and len(settings.grid("bf16")) == 2
    assert {b.tf32 for b in settings.grid("bf16")} == {True}  # as the device default holds it
    labels = [settings.label(b, "fp32") for b in settings.grid("fp32")]
    assert labels[0] == "cudnn.benchmark off, TF32 off" and len(set(labels)) == 4
    assert settings.label(settings.grid("bf16")[1], "bf16") == "cudnn.benchmark on"


def test_each_point_compiles_its_own_function():
    model = torch.nn.Linear(2, 2)
    a, b = settings.own_function(model), settings.own_function(model)
    assert a.__code__ is not b.__code__
    x = torch.ones(1, 2)
    assert torch.equal(a(x), model(x))


# Paired rounds: off 1.0 ms each round, on 0.8 (helps), 1.25 (hurts) or about 1.0 (noise).
OFF = (1.0, 1.0, 1.0)
FASTER, SLOWER, SAME = (0.8, 0.8, 0.8), (1.25, 1.25, 1.25), (0.95, 1.0, 1.06)


def sweep(default_on, ro_on, ro32_on=None):
    rows = [point("resnet50", 1, "default", OFF, benchmark=False),
            point("resnet50", 1, "default", default_on, benchmark=True),
            point("resnet50", 1, "reduce-overhead", OFF, benchmark=False),
            point("resnet50", 1, "reduce-overhead", ro_on, benchmark=True)]
    if ro32_on:
        rows += [point("resnet50", 32, "reduce-overhead", OFF, benchmark=False),
                 point("resnet50", 32, "reduce-overhead", ro32_on, benchmark=True)]
    return doc(settings.KIND, rows)


def test_a_switch_that_helps_is_chosen_on_and_one_that_hurts_off():
    d = sweep(FASTER, SLOWER)
    v = settings.verdicts(d)
    assert v[("default", "cudnn_benchmark")]["verdict"] == "helps"
    assert v[("default", "cudnn_benchmark")]["gmean"] == pytest.approx(1.25)
    assert v[("reduce-overhead", "cudnn_benchmark")]["verdict"] == "hurts"
    chosen = settings.chosen(d)
    assert chosen["default"].cudnn_benchmark and not chosen["reduce-overhead"].cudnn_benchmark


def test_within_noise_keeps_torchs_default_off():
    d = sweep(SAME, SAME)
    assert settings.verdicts(d)[("default", "cudnn_benchmark")]["verdict"] == "within noise"
    assert not settings.chosen(d)["default"].cudnn_benchmark


def test_mixed_evidence_goes_by_the_geometric_mean():
    d = sweep(FASTER, FASTER, ro32_on=(1.1, 1.1, 1.1))  # helps at batch 1, hurts at 32
    v = settings.verdicts(d)[("reduce-overhead", "cudnn_benchmark")]
    assert v["verdict"] == "mixed" and (v["helps"], v["hurts"], v["groups"]) == (1, 1, 2)
    assert settings.chosen(d)["reduce-overhead"].cudnn_benchmark  # 1.25 and 1/1.1: a net gain


def test_tf32_is_judged_where_the_grid_turned_it():
    rows = [point("t", 1, "eager", OFF, benchmark=b, tf32=t) for t in (False, True)
            for b in (False, True)]
    rows[2]["latency_ms"] = rows[3]["latency_ms"] = {"median": 0.5, "iqr": 0.0,
                                                     "samples": [0.5, 0.5, 0.5]}
    d = doc(settings.KIND, rows, dtype="fp32")
    effects = [e for e in settings.effects(d) if e["switch"] == "tf32"]
    assert len(effects) == 2 and all(e["verdict"] == "helps" for e in effects)
    chosen = settings.chosen(d)["eager"]
    assert chosen.tf32 and chosen.cudnn_tf32 and not chosen.cudnn_benchmark


def test_failed_points_are_left_out_of_the_evidence():
    d = sweep(FASTER, SLOWER)
    d["rows"][1]["status"] = "error"
    assert ("default", "cudnn_benchmark") not in settings.verdicts(d)
    assert not settings.chosen(d)["default"].cudnn_benchmark  # as the grid's first point


def test_evidence_names_its_run_and_each_modes_settings():
    ev = settings.evidence(sweep(FASTER, SLOWER))
    assert ev["from"]["date"] == "2026-01-01T00:00:00+00:00" and ev["from"]["kind"] == settings.KIND
    assert ev["modes"]["default"]["cudnn_benchmark"] is True
    assert ev["verdicts"]["reduce-overhead · cudnn_benchmark"] == "hurts"
