"""snippets.generate.ladder: the decode ladder's rows, statuses, token agreement and errors."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from snippets.core import results
from snippets.generate import bounds, ladder, ladder_findings, tables, weight_bytes
from snippets.generate import model as M
from tests.cli_run import assert_one_line_error, run


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One ladder of the tiny decoder on this CPU, every rung, as its command writes it."""
    out = tmp_path_factory.mktemp("ladder") / "generate-ladder.json"
    torch._dynamo.reset()
    assert ladder.main(["--device", "cpu", "--size", "tiny", "--rounds", "2", "--steps", "8",
                        "--profile", "--output", str(out)]) == 0
    return results.load(out, ladder.KIND)


def test_every_rung_is_a_row_in_ladder_order_with_its_recipe(recorded):
    assert [r["rung"] for r in recorded["rows"]] == list(ladder.RUNGS)
    assert recorded["complete"] and recorded["ceilings"]["copy_gbps"] > 0
    assert recorded["compiles_while_timed"] == 0  # every time is of what its rung compiled
    by = {r["rung"]: r for r in recorded["rows"]}
    assert by["gqa"]["recipe"]["gqa"] and not by["fullgraph"]["recipe"]["gqa"]
    assert by["coordinate-descent"]["recipe"]["descent"]


def test_compiled_rungs_are_timed_and_their_fp32_tokens_are_eagers(recorded):
    by = {r["rung"]: r for r in recorded["rows"]}
    for name in ("eager", "compile", "fullgraph", "gqa", "coordinate-descent"):
        r = by[name]
        assert r["status"] in ("ok", "noisy"), r
        assert r["step_ms"]["samples"] and r["first_diff"] is None and len(r["tokens"][0]) == 8
        assert r["bytes_per_step"] > 0 and r["of_copy_bw"] > 0
        assert (r["compile_s"] is None) == (name == "eager")
    assert by["eager"]["tokens"] == by["fullgraph"]["tokens"]


def test_rungs_this_machine_cannot_run_are_unsupported_rows_with_one_line(recorded):
    by = {r["rung"]: r for r in recorded["rows"]}
    for name in ("cudagraphs", "eager-graphed"):
        assert by[name]["status"] == "unsupported" and "CUDA" in by[name]["message"]
    if importlib.util.find_spec("torchao") is None:
        assert by["int8"]["status"] == "unsupported" and "torchao" in by["int8"]["message"]
        assert "\n" not in by["int8"]["message"]


def test_the_fastest_rung_is_profiled(recorded):
    profiled = [r for r in recorded["rows"] if "profile" in r]
    assert [r["rung"] for r in profiled] == [recorded["profiled"]]
    assert profiled[0]["profile"]["calls"] == 20


def test_the_ladder_finding_reads_the_profile_and_each_rung_over_the_one_below(recorded):
    found = ladder_findings.ladder(recorded)
    prof = next(r["profile"] for r in recorded["rows"] if "profile" in r)
    top = next(r for r in recorded["rows"] if r["rung"] == found.best)
    busy = top["bytes_per_step"] / (prof["busy_us_per_call"] * 1e-6)
    assert found.busy_share == pytest.approx(100 * busy / recorded["ceilings"]["copy_gbps"] / 1e9)
    assert "eager" not in found.over_prev and "gqa" in found.compile_s
    assert found.over_prev["gqa"] == next(r for r in recorded["rows"]
                                          if r["rung"] == "gqa")["speedup_prev"]
    lines = tables.profile_table(recorded).splitlines()
    assert len(lines) == 2 + len(prof["top"])
    # each kernel's share is of the busy time, not of the span with its gaps
    first = prof["top"][0]
    assert lines[2].split("|")[4].strip() == format(
        100 * first["us_per_call"] / prof["busy_us_per_call"], ".0f")


def test_a_quantized_weight_is_counted_by_the_tensors_it_holds():
    m = M.build("tiny", "cpu", torch.float32)
    m.setup_cache(1, 32)
    assert weight_bytes.step_bytes(m, 1, 10) == bounds.decode_bytes(m.shape, 1, 10, 4)
    assert M.first_diff(torch.tensor([[1, 2, 3]]), torch.tensor([[1, 2, 4]])) == 2
    assert M.first_diff(torch.tensor([[1, 2]]), torch.tensor([[1, 2]])) is None


@pytest.mark.parametrize("argv, expect", [
    (["--size", "huge"], "huge"),
    (["--batch", "0"], "--batch"),
    (["--prompt", "60", "--cache", "64"], "shorter than the prompt"),
    (["--rungs", "eager,warp"], "unknown rung 'warp'"),
    (["--device", "cpu"], "--output"),
])
def test_mistakes_get_one_line_and_exit_2(argv, expect, capsys, tmp_path):
    out = [] if "--device" in argv else ["--device", "cpu", "--output", str(tmp_path / "x.json")]
    assert_one_line_error(*run(ladder.main, capsys, *argv, *out), expect, prog=ladder.PROG)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_asked_for_without_cuda_is_one_line(capsys, tmp_path):
    assert_one_line_error(*run(ladder.main, capsys, "--device", "cuda", "--output",
                               str(tmp_path / "x.json")), "no CUDA device", prog=ladder.PROG)


@pytest.mark.gpu
def test_on_a_gpu_the_cuda_graph_rung_is_timed():
    doc = ladder.run(ladder.LadderConfig(device="cuda", size="tiny", rounds=2, steps=8,
                                         rungs=("cudagraphs", "eager-graphed")))
    by = {r["rung"]: r for r in doc["rows"]}
    assert by["cudagraphs"]["status"] in ("ok", "noisy") and by["cudagraphs"]["step_ms"]
    hand = by["eager-graphed"]  # eager's step captured by hand: eager's tokens, nothing compiled
    assert hand["status"] in ("ok", "noisy") and hand["step_ms"] and hand["compile_s"] is None
    assert hand["capture_s"] > 0 and hand["prev_rung"] == "eager"
    assert by["cudagraphs"]["prev_rung"] == "eager"  # the side rung is no rung's rung below
