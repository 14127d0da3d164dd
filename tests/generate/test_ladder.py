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
    by = {r["rung"]: r for r in recorded["rows"]}
    assert found.gqa == by["gqa"]["speedup_prev"] and found.gqa_compile_s == by["gqa"]["compile_s"]
    assert found.tuning == by["coordinate-descent"]["speedup_prev"]
    assert found.tuning_loses == (found.tuning < 1)
    lines = tables.profile_table(recorded).splitlines()
    assert len(lines) == 2 + len(prof["top"])
    # each kernel's share is of the busy time, not of the span with its gaps
    first = prof["top"][0]
    assert lines[2].split("|")[4].strip() == format(
        100 * first["us_per_call"] / prof["busy_us_per_call"], ".0f")


def _rung(name, ms, prev):
    return {"rung": name, "status": "ok", "step_ms": {"median": ms}, "speedup": 10 / ms,
            "of_copy_bw": 0.4, "bytes_per_step": 1e9, "speedup_prev": prev, "compile_s": 5.0}


def _ladder(tuning, size):
    return {"ceilings": {"copy_gbps": 4000.0}, "provenance": {"settings": {"size": size}},
            "rows": [_rung("gqa", 1.0, 3.0), _rung("coordinate-descent", 1 / tuning, tuning)]}


def _cell(weights, way, speedup, iqr=0.0):
    return {"weights": weights, "way": way, "status": "ok", "tokens_per_s": 100.0,
            "latency_ms": {"median": 1.0, "iqr": 0.0, "samples": [1.0]}, "of_copy_bw": 0.5,
            "speedup": speedup, "speedup_iqr": iqr, "vs_loop": 0.8 if way == "naive" else None}


def _loops(size, *rows):
    return {"provenance": {"settings": {"size": size, "batch": 1, "tokens": 8, "dtype": "bf16"}},
            "ceilings": {"copy_gbps": 4000.0}, "rows": list(rows)}


def test_the_recap_leads_with_int4_where_it_paid_else_with_timing_the_tuning():
    lad, lad7 = _ladder(1.2, "1b"), _ladder(0.9, "7b")
    one, seven = ladder_findings.ladder(lad), ladder_findings.ladder(lad7)
    assert seven.tuning_loses and not one.tuning_loses and one.tuning == 1.2
    assert one.gqa_compile_s == 5.0 and one.int8 is None and one.int8_ms is None
    lo7 = _loops("7b", _cell("dense", "naive", None), _cell("int8", "loop", 1.12, 0.02),
                 _cell("int8", "naive", 1.05))
    int4 = _loops("7b", _cell("int4", "loop", 1.36), _cell("int8", "loop", 1.1))
    lost = _loops("7b", _cell("int4", "loop", 0.9))
    found = ladder_findings.advice(lad, lad7, None, lo7, int4)
    assert found.lead is ladder_findings.Lead.INT4 and found.size == "7b"
    assert found.int8.speedup == 1.12 and found.naive.vs_loop == 0.8
    assert ladder_findings.advice(lad, lad7, None, lo7, lost).lead is ladder_findings.Lead.RETIME
    assert ladder_findings.advice(lad, None, None, lo7, None).lead is ladder_findings.Lead.TUNE
    # no 7 B loop: the 1 B one's, whose int8 did not pay
    one = ladder_findings.advice(lad, None, _loops("1b", _cell("int8", "loop", 0.9)), None, None)
    assert one.size == "1b" and one.int8 is None and one.naive is None


def test_a_quantized_weight_is_counted_by_the_tensors_it_holds():
    m = M.build("tiny", "cpu", torch.float32)
    m.setup_cache(1, 32)
    assert weight_bytes.step_bytes(m, 1, 10) == bounds.decode_bytes(m.shape, 1, 10, 4)
    assert M.first_diff(torch.tensor([[1, 2, 3]]), torch.tensor([[1, 2, 4]])) == 2
    assert M.first_diff(torch.tensor([[1, 2]]), torch.tensor([[1, 2]])) is None


@pytest.mark.parametrize("argv, expect", [
    (["--size", "huge"], "huge"),
    (["--batch", "0"], "--batch"),
    (["--prompt", "60", "--cache", "64"], "--cache: below prompt+steps=76"),
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
