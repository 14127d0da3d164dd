"""snippets.scale over a real CPU run through torchrun and gloo: the configurations it plans, the
graphs DDP and FSDP2 compile, the loss against one process, and the results file."""

from __future__ import annotations

import json
import statistics

import pytest

from snippets import scale
from snippets.core import results, stamps
from snippets.scale import gather, launch, wrap
from snippets.scale.job import Job
from snippets.train import TOLERANCE

from .conftest import MLP


def _rows(path, model: str = MLP) -> dict[tuple, dict]:
    return {(r["strategy"], r["variant"], r["nodes"]): r for r in results.load(path)["rows"]
            if r["model"] == model}


def test_config_defaults_resolve_per_device():
    cpu = scale.ScaleConfig(device="cpu").resolve()
    assert cpu.models == ("tiny-cnn", "small-transformer") and cpu.dtype == "fp32"
    assert cpu.strategies == ("single", "ddp", "fsdp2") and cpu.nproc == 2
    assert cpu.bucket_caps == (1.0,)  # DDPOptimizer's smallest: its first bucket is 1 MiB
    cuda = scale.ScaleConfig(device="cuda").resolve()
    assert cuda.models == ("resnet50", "transformer") and cuda.dtype == "bf16"
    assert cuda.bucket_caps == (wrap.DDP_BUCKET_MB,) and cuda.batch_size == 64
    # strategies and variants run in their own order: the one-process reference first
    given = scale.ScaleConfig(device="cpu", strategies=("fsdp2", "single"),
                              variants=("compiled", "eager")).resolve()
    assert given.strategies == ("single", "fsdp2") and given.variants == ("eager", "compiled")


def test_the_plan_puts_the_reference_first_and_a_ddp_run_at_each_bucket_size():
    cfg = scale.ScaleConfig(device="cpu", models=("m",), variants=("eager",), batch_size=4,
                            nproc=2, nodes=2, bucket_caps=(1.0, 5.0)).resolve()
    plan = [(p.strategy, p.nodes, p.nproc, p.batch_size, p.bucket_cap_mb)
            for p in scale.plan(cfg)]
    assert plan == [("single", 1, 1, 16, None), ("ddp", 2, 2, 4, 1.0), ("ddp", 2, 2, 4, 5.0),
                    ("fsdp2", 2, 2, 4, None)]  # one process trains all four ranks' samples


def test_blocks_are_module_list_entries_and_residual_blocks():
    from snippets.scale import models as scale_models
    from tests.scale.models import mlp

    model, _ = mlp(2)
    assert [name for _, name in wrap.blocks(model)] == ["0", "1"]
    encoder, _ = scale_models.small_transformer(2)
    assert len(wrap.blocks(encoder)) == 2
    with pytest.raises(wrap.NoBlocks):
        wrap.check_blocks(scale_models.BUILTIN["tiny-cnn"](2)[0], "per-block")


def test_ddp_splits_the_compiled_graph_at_its_buckets(cpu_scale_run):
    rows = _rows(cpu_scale_run)
    eager, compiled = rows["ddp", "eager", 1], rows["ddp", "compiled", 1]
    assert (eager["graph_count"], eager["compiled_graphs"]) == (0, 0)
    # One Dynamo graph of the model; DDPOptimizer cut it where the 1 MB buckets meet, and each
    # piece was compiled on its own: the MLP's 3 MB of weights make at least two.
    assert compiled["graph_count"] == 1 and compiled["compiled_graphs"] >= 2
    assert compiled["bucket_cap_mb"] == 1.0
    # every rank compiles the same pieces on its own
    assert {r["compiled_graphs"] for r in compiled["ranks"]} == {compiled["compiled_graphs"]}


def test_fsdp2_compiles_each_block_with_its_hooks_outside(cpu_scale_run):
    row = _rows(cpu_scale_run)["fsdp2", "per-block", 1]
    assert row["status"] in ("ok", "noisy"), row["message"]
    assert row["graph_count"] >= 1 and row["graph_breaks"] == 0


def test_a_block_compiled_in_place_is_compiled_only_if_its_forward_is_outside_torch(
        cpu_scale_run):
    # Block.compile() once sharded compiles the block's whole call. Dynamo runs FSDP's hooks
    # eagerly (they are wrapped in torch._dynamo.disable) and starts tracing again only in a
    # frame outside torch's own files: the MLP's Residual.forward is compiled, and
    # nn.TransformerEncoderLayer.forward (torch/nn/modules/transformer.py) is not.
    own = _rows(cpu_scale_run)["fsdp2", "per-block-inplace", 1]
    torch_nn = _rows(cpu_scale_run, "small-transformer")["fsdp2", "per-block-inplace", 1]
    for row in (own, torch_nn):
        assert row["status"] in ("ok", "noisy"), row["message"]
    assert own["graph_count"] >= 1 and own["ops_captured"] > 0
    assert torch_nn["graph_count"] == 0 and torch_nn["ops_captured"] == 0


def test_every_rank_profiles_its_steps_after_the_timed_ones(cpu_scale_run):
    for row in results.load(cpu_scale_run)["rows"]:
        assert row["profile"]["calls"] == 1 and row["profile"]["span_us_per_call"] > 0
        assert row["profile"] == row["ranks"][0]["profile"]  # rank 0's, as the counts are
        assert all(r["profile"]["top"] for r in row["ranks"])


@pytest.mark.parametrize("which", [("ddp", "eager", 1), ("ddp", "compiled", 1),
                                   ("fsdp2", "per-block", 1), ("ddp", "eager", 2)])
def test_every_configuration_learns_as_one_process_does(cpu_scale_run, which):
    rows = _rows(cpu_scale_run)
    row = rows[which]
    assert row["status"] in ("ok", "noisy"), row["message"]
    # Each rank trains its own slice of the batch, so their losses differ; their mean is the
    # loss over the whole batch, which the one process computes. In fp32 the two differ only
    # in the order of the sums (gradients averaged across ranks), far below the tolerance.
    first = [r["losses"][0] for r in row["ranks"]]
    assert len(set(first)) == 2 and row["losses"][0] == pytest.approx(statistics.fmean(first))
    assert row["loss_gap"] <= TOLERANCE["fp32"]
    assert row["losses"][-1] < row["losses"][0]  # it trains


def test_rows_hold_their_ranks_and_the_efficiency_against_one_process(cpu_scale_run):
    doc = results.load(cpu_scale_run, scale.KIND)
    rows = _rows(cpu_scale_run)
    one = rows["single", "eager", 1]
    assert (one["world_size"], one["global_batch"], len(one["ranks"])) == (1, 8, 1)
    for row in doc["rows"]:
        assert row["global_batch"] == 8 and len(row["step_ms"]["samples"]) == 3
        assert len(row["ranks"]) == row["world_size"] and len(row["losses"]) == 4
        assert row["samples_per_s"] == pytest.approx(8 / (row["step_ms"]["median"] * 1e-3))
        assert row["peak_mem_mb"] is None  # memory is read on CUDA only
        # a step ends when the slowest rank's does
        per_rank = [r["step_ms"] for r in row["ranks"]]
        assert row["step_ms"]["samples"] == [max(s) for s in zip(*per_rank, strict=True)]
    ddp = rows["ddp", "eager", 1]
    assert ddp["scaling_efficiency"] == pytest.approx(
        one["step_ms"]["median"] / (2 * ddp["step_ms"]["median"]))
    assert rows["ddp", "compiled", 1]["scaling_efficiency"] is None  # no compiled single run


def test_two_nodes_meet_at_a_c10d_rendezvous(cpu_scale_run):
    row = _rows(cpu_scale_run)["ddp", "eager", 2]
    assert (row["nodes"], row["nproc_per_node"], row["world_size"]) == (2, 1, 2)
    assert sorted(r["rank"] for r in row["ranks"]) == [0, 1]
    assert {r["local_rank"] for r in row["ranks"]} == {0}  # one process on each node
    words = row["launch"].replace("\\\n", " ").split()
    flags = {w: words[i + 1] for i, w in enumerate(words[:-1]) if w.startswith("--")}
    assert (flags["--nnodes"], flags["--node-rank"], flags["--rdzv-backend"]) == ("2", "0", "c10d")
    assert flags["--rdzv-endpoint"].startswith("localhost:")
    assert "is_host=1" in row["launch"] and words[words.index("-m") + 1] == "snippets.scale.rank"


def test_the_results_file_round_trips(cpu_scale_run):
    doc = results.load(cpu_scale_run, scale.KIND)
    assert doc["complete"] and doc["schema"] == "snippets.scale/1"
    assert results.validate(json.loads(json.dumps(doc)), kind=scale.KIND) == doc
    settings = doc["provenance"]["settings"]
    assert settings["backend"] == "gloo" and settings["nccl_nvls_enable"] == "0"
    assert settings["strategies"] == ["single", "ddp", "fsdp2"]  # grown by each command
    assert len(doc["provenance"]["parts"]) == 5 and {r["part"] for r in doc["rows"]} == {
        0, 1, 2, 3, 4}
    assert "fp32" in stamps.stamp(doc) and "2 processes" in stamps.stamp(doc)


@pytest.mark.parametrize("row, problem", [
    ({"losses": "nope"}, "field 'losses' has the wrong type"),
    ({"step_ms": {"median": 1.0}}, "step_ms needs median, iqr and samples"),
    ({"status": "hung"}, "status 'hung' is not one of"),
    ({"ranks": None}, "field 'ranks' has the wrong type"),
])
def test_a_broken_row_is_named(cpu_scale_run, tmp_path, row, problem):
    doc = results.load(cpu_scale_run)
    doc["rows"][0].update(row)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(results.ResultsError, match=problem):
        results.load(bad, scale.KIND)


def test_a_configuration_past_its_time_is_stopped_with_its_ranks():
    item = Job(model="tests.scale.models:hangs_on_rank_1", strategy="ddp",
                         variant="eager", batch_size=2, device="cpu", nproc=2, steps=2,
                         rounds=1, timeout_s=10)
    row = launch.run(item)
    assert (row["status"], row["message"]) == ("error", "timed out after 10 s")
    assert _gone(item.model)


def test_stop_finds_a_process_of_the_configuration_that_no_launcher_knows(tmp_path):
    # What a launcher stopped while it starts its ranks leaves: a rank it never registered,
    # orphaned, waiting for a rendezvous that will not come. Its environment still names the
    # configuration, and stop() kills it by that.
    import os
    import subprocess
    import sys

    orphan = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                              env={**os.environ, launch.MARK: str(tmp_path)})
    try:
        launch.stop([], str(tmp_path))
        assert orphan.wait(timeout=10) == -9
    finally:
        orphan.kill()


def _gone(model: str, within_s: float = 10.0) -> bool:
    """Whether every launcher and rank of ``model`` has exited, allowing them ``within_s``."""
    import time

    deadline = time.monotonic() + within_s
    while _running(model):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def _running(model: str) -> list[int]:
    """The launchers and ranks of ``model`` still running: only ones a test started are."""
    from pathlib import Path

    marker, found = f"-m snippets.scale.rank --model {model}", []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker in (proc / "cmdline").read_bytes().replace(
                    b"\0", b" ").decode(errors="replace"):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_a_failing_rank_fills_its_configurations_row():
    item = Job(model=MLP, strategy="ddp", variant="eager", batch_size=2,
                         device="cpu", nproc=2)
    faulted = {"rank": 1, "status": "error", "message": "RuntimeError: planted"}
    row = gather.row(item, [faulted], "rank 1 exited with code 1")
    assert (row["status"], row["message"]) == ("error", "rank 1: RuntimeError: planted")
    reason = "rank 0 was killed by SIGKILL"
    row = gather.row(item, [], reason)
    assert row["message"] == reason and row["step_ms"] is None  # the launcher's reason, as given


def test_a_launcher_that_failed_says_which_rank_failed_first():
    report = ("Failures:\n[1]:\n  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 3)\n"
              "Root Cause (first observed failure):\n[0]:\n  host      : localhost\n"
              "  rank      : 0 (local_rank: 0)\n  exitcode  : -9 (pid: 2)\n")
    first = launch.exit_reason([report], [1])  # rank 0, the first observed, not rank 1
    assert first.startswith("rank 0 ") and first.endswith(" SIGKILL")
    last = launch.exit_reason(["ValueError: boom\n====="], [2])  # no report: the last line
    assert "code 2" in last and last.endswith(": ValueError: boom")
