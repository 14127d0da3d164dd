"""snippets.train: defaults, learning the same on the CPU, the results file, faults in their rows,
and joining the files of a run split over commands."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch

from snippets import train
from snippets.core import backends, examples, results, stamps
from snippets.train import classifiers, group, step

from .conftest import QUICK
from .test_cli import run_cli

FAULTS = "tests.fault_models"


def test_config_defaults_resolve_per_device():
    cpu = train.TrainConfig(device="cpu").resolve()
    assert cpu.models == ("tiny-cnn", "tiny-transformer") and cpu.dtype == "fp32"
    assert cpu.variants == train.CPU_VARIANTS and cpu.steps == 10
    cuda = train.TrainConfig(device="cuda").resolve()
    assert cuda.models == ("resnet50", "transformer") and cuda.batch_sizes == (32, 128)
    assert cuda.dtype == "bf16" and cuda.steps == 100
    assert "max-autotune" not in cuda.variants and "max-autotune-no-cudagraphs" in cuda.variants
    assert cuda.backends == backends.DEFAULT["cuda"] and cpu.backends == backends.DEFAULT["cpu"]
    # eager is always added, and the variants run in the order of step.VARIANTS
    given = train.TrainConfig(device="cpu", variants=("step", "model")).resolve()
    assert given.variants == ("eager", "model", "step")


def test_every_compiled_variant_learns_as_eager_does_on_the_cpu(cpu_train_run):
    doc = results.load(cpu_train_run, train.KIND)
    rows = {r["variant"]: r for r in doc["rows"]}
    assert list(rows) == list(train.CPU_VARIANTS)
    eager = rows["eager"]["losses"]
    assert len(eager) == 5 and eager[-1] < eager[0]  # it trains
    for variant, row in rows.items():
        assert row["status"] in ("ok", "noisy"), (variant, row["message"])
        assert len(row["losses"]) == 5
        if variant != "eager":
            assert row["loss_gap"] <= train.TOLERANCE["fp32"]
            assert row["loss_gap"] == examples.loss_gap(row["losses"], eager)


def test_graphs_and_breaks_of_each_variant(cpu_train_run):
    rows = {r["variant"]: r for r in results.load(cpu_train_run)["rows"]}
    assert (rows["eager"]["graph_count"], rows["eager"]["graph_breaks"]) == (0, 0)
    assert (rows["model"]["graph_count"], rows["model"]["graph_breaks"]) == (1, 0)
    assert rows["model+optimizer"]["graph_count"] > 1  # the model's graph and the optimizer's
    # The whole step: Dynamo cannot trace loss.backward(), so the graph breaks there.
    assert any("backward" in r for r in rows["step"]["break_reasons"])
    assert rows["step"]["graph_count"] > rows["model"]["graph_count"]


def test_the_results_file_round_trips(cpu_train_run):
    doc = results.load(cpu_train_run, train.KIND)
    assert doc["complete"] and doc["schema"] == "snippets.train/1"
    assert results.validate(json.loads(json.dumps(doc)), kind=train.KIND) == doc
    settings = doc["provenance"]["settings"]
    assert settings["dtype"] == "fp32" and settings["autocast"] is None
    assert settings["weights"] == "fp32" and settings["optimizer"] == f"AdamW(lr={train.LR:g})"
    assert settings["train"] is True and settings["steps"] == 5
    for row in doc["rows"]:
        assert len(row["step_ms"]["samples"]) == 3 and row["flops"] > 0
        assert row["samples_per_s"] == pytest.approx(4 / (row["step_ms"]["median"] * 1e-3))
        assert len(row["first_steps_s"]) == group.FIRST_STEPS
        assert row["peak_mem_mb"] is None  # memory is read on CUDA only
        # Profiled after the timing: the step's top-level operators, none of them launches
        assert row["profile"]["kernels_per_call"] > 0 and row["profile"]["top"]
        assert row["profile"]["device_type"] == "cpu" and row["profile"]["calls"] == 2
    assert "fp32" in stamps.stamp(doc) and "3 rounds" in stamps.stamp(doc)


@pytest.mark.parametrize("row, problem", [
    ({"losses": "nope"}, "field 'losses' has the wrong type"),
    ({"step_ms": {"median": 1.0}}, "step_ms needs median, iqr and samples"),
    ({"status": "diverged"}, "status 'diverged' is not one of"),
])
def test_a_bad_row_is_refused(cpu_train_run, row, problem):
    doc = results.load(cpu_train_run)
    doc["rows"][0].update(row)
    with pytest.raises(results.ResultsError, match=problem):
        results.validate(doc, kind=train.KIND)


def test_loss_gap():
    assert examples.loss_gap([2.0, 1.5], [2.0, 1.0]) == pytest.approx(0.25)  # of the first loss
    assert examples.loss_gap([2.0, None], [2.0, 1.0]) == math.inf  # a loss that was not finite
    assert examples.loss_gap([], []) == math.inf


def test_a_fault_is_recorded_in_its_row_and_the_run_goes_on(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, _, _ = run_cli(capsys, "--model", f"{FAULTS}:compile_error", "--model",
                         "tests.train.faults:compile_oom", "--variants", "model", *QUICK,
                         "--steps", "2", "--output", str(out), "--format", "json")
    assert code == 0
    rows = {(r["model"], r["variant"]): r for r in results.load(out)["rows"]}
    err = rows[(f"{FAULTS}:compile_error", "model")]
    assert err["status"] == "error" and "TorchRuntimeError" in err["message"]
    assert rows[("tests.train.faults:compile_oom", "model")]["status"] == "oom"
    for name in (f"{FAULTS}:compile_error", "tests.train.faults:compile_oom"):
        eager = rows[(name, "eager")]  # eager trained and was timed all the same
        assert eager["status"] in ("ok", "noisy") and eager["step_ms"]


def test_an_eager_fault_marks_every_row_of_that_model(tmp_path, capsys):
    out = tmp_path / "r.json"
    code, _, _ = run_cli(capsys, "--model", f"{FAULTS}:eager_error", "--variants", "model",
                         *QUICK, "--output", str(out), "--format", "json")
    assert code == 0
    assert [r["status"] for r in results.load(out)["rows"]] == ["error", "error"]


def test_joining_a_run_split_over_commands(cpu_train_run):
    first = results.load(cpu_train_run)
    second = json.loads(json.dumps(first))
    second["provenance"]["settings"]["variants"] = ["eager", "reduce-overhead"]
    second["rows"] = [second["rows"][0], {**second["rows"][1], "variant": "reduce-overhead"}]
    joined = results.validate(train.join(first, second), kind=train.KIND)
    seen = [(r["variant"], r["part"]) for r in joined["rows"]]
    # The second command's rows stand in a block of their own, with the eager row their
    # speedups are against; the first command's block stays whole.
    assert seen == [*((v, 0) for v in train.CPU_VARIANTS), ("eager", 1), ("reduce-overhead", 1)]
    assert len(joined["provenance"]["parts"]) == 2
    assert joined["provenance"]["settings"]["variants"][-1] == "reduce-overhead"


def test_a_command_run_again_replaces_its_block_and_one_that_measured_less_adds_one(
        cpu_train_run):
    first = results.load(cpu_train_run)
    again = json.loads(json.dumps(first))
    joined = train.join(first, again)
    # Every row is the second command's: it measured all the first one did.
    assert [(r["variant"], r["part"]) for r in joined["rows"]] == [
        (v, 1) for v in train.CPU_VARIANTS]
    only_eager = {**again, "rows": again["rows"][:1]}
    kept = train.join(first, only_eager)
    # A command of eager alone leaves the block whose compiled rows refer to its eager row.
    assert [(r["variant"], r["part"]) for r in kept["rows"]] == [
        *((v, 0) for v in train.CPU_VARIANTS), ("eager", 1)]


def test_a_run_of_other_settings_cannot_join(cpu_train_run):
    old = results.load(cpu_train_run)
    cfg = train.TrainConfig(device="cpu", steps=7).resolve()
    prov = results.provenance(torch.device("cpu"), cfg.settings())
    with pytest.raises(results.ResultsError, match="setting steps is 7 here, 5 in the file"):
        train.check_joinable(old, prov)


def test_make_step_compiles_what_each_variant_says():
    model = torch.nn.Linear(4, 2)
    optimizer = step.optimizer_for(model, 1e-3)
    plain = step.make_step("eager", model, optimizer)
    assert plain.func is step.train_step and plain.args == (model, optimizer)
    assert isinstance(step.make_step("model", model, optimizer).args[0],
                      torch._dynamo.eval_frame.OptimizedModule)
    assert step.make_step("step", model, optimizer).func is not step.train_step
    assert set(step.COMPILES) == set(step.VARIANTS)


@pytest.mark.gpu
def test_a_cuda_run_learns_the_same_in_bf16(tmp_path: Path):
    before = (torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark)
    cfg = train.TrainConfig(device="cuda", models=("tiny-cnn", "tiny-transformer"),
                            batch_sizes=(8,), variants=train.CUDA_VARIANTS[:5], steps=20,
                            rounds=3, warm_rounds=0)
    doc = train.document(cfg)
    assert results.validate(doc, kind=train.KIND) and doc["complete"]
    prov = doc["provenance"]
    assert prov["device_type"] == "cuda" and prov["peak_bf16_tflops"] > 0
    assert prov["settings"]["dtype"] == "bf16 autocast" and prov["settings"]["autocast"] == "bf16"
    for row in doc["rows"]:
        assert row["status"] in ("ok", "noisy"), (row["model"], row["variant"], row["message"])
        assert row["peak_mem_mb"] > 0 and row["pct_of_peak"] > 0
        if row["variant"] == "reduce-overhead":  # its CUDA graphs' pool, measured apart
            assert row["graph_pool_mb"] > 0 and row["graph_pool_shared_with"] == []
        if row["variant"] != "eager":
            assert row["loss_gap"] <= train.TOLERANCE["bf16"]
    assert (torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark) == before


@pytest.mark.parametrize("name", list(classifiers.BUILTIN))
def test_every_model_is_a_classifier_without_dropout(name):
    model, x = classifiers.BUILTIN[name](2)
    with torch.no_grad():
        assert model.eval()(x).shape == (2, classifiers.CLASSES)
    dropouts = [m.p for m in model.modules() if isinstance(m, torch.nn.Dropout)]
    attention = [m.dropout for m in model.modules()
                 if isinstance(m, torch.nn.MultiheadAttention)]
    assert all(p == 0.0 for p in dropouts + attention)  # eager and compiled drop nothing
