"""snippets.generate.loop: the gpt-fast loop and the naive one, their tokens and compiles, the
rows of a run, its findings and its errors. The tiny decoder in fp32 on the CPU, where every
loop's tokens must be eager's exactly."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from snippets.core import results
from snippets.core.counters import graphs_compiled
from snippets.core.findings import Verdict
from snippets.generate import bounds, decode_loop, loop, loop_config, loop_findings, model, tables
from tests.cli_run import assert_one_line_error, run


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One run on this CPU as its command writes it: the fp32 decoder and the int8 layer, each
    compiled once, timed three ways; torchao, where it is missing, one row that says so."""
    out = tmp_path_factory.mktemp("loop") / "generate-loop.json"
    torch._dynamo.reset()
    assert loop.main(["--device", "cpu", "--rounds", "2", "--tokens", "6",
                      "--weights", "dense,int8,torchao", "--profile", "--output", str(out)]) == 0
    torch._dynamo.reset()
    return results.load(out, loop.KIND)


def _by(doc):
    return {(r["weights"], r["way"]): r for r in doc["rows"]}


def test_every_weights_is_timed_three_ways_in_order(recorded):
    assert recorded["complete"] and recorded["compiles_while_timed"] == 0
    # each weights that compiled has its autotuned kernels' choices (empty where none were)
    assert set(recorded["tuned"]) == {"dense", "int8"}
    assert [(r["weights"], r["way"]) for r in recorded["rows"] if r["weights"] != "torchao"] == [
        (w, way) for w in ("dense", "int8") for way in loop_config.WAYS]
    for r in recorded["rows"]:
        if r["weights"] != "torchao":
            assert r["status"] in ("ok", "noisy"), r
            assert r["latency_ms"]["samples"] and r["of_copy_bw"] > 0


def test_the_loops_generate_eager_s_tokens_and_compile_nothing_the_step_did_not(recorded):
    by = _by(recorded)
    for w in ("dense", "int8"):
        # the step's first call compiles it; neither loop compiles again (the position moved in
        # place on the device, or made in Python each step, is one input of one graph)
        assert by[w, "step"]["compiles"] == 1 and by[w, "step"]["compile_s"] > 0
        assert by[w, "loop"]["compiles"] == by[w, "naive"]["compiles"] == 0
        assert by[w, "naive"]["tokens"] == by[w, "loop"]["tokens"]
        assert len(by[w, "loop"]["tokens"][0]) == 6
    assert by["dense", "loop"]["first_diff"] is None  # fp32: eager's greedy tokens exactly


def test_the_int8_rows_read_fewer_bytes_and_are_timed_against_the_dense_ones(recorded):
    by = _by(recorded)
    assert by["int8", "step"]["bytes_per_step"] < by["dense", "step"]["bytes_per_step"]
    assert by["int8", "step"]["speedup"] > 0 and by["dense", "step"]["speedup"] is None
    assert by["dense", "loop"]["vs_step"] > 0 and by["dense", "naive"]["vs_loop"] > 0
    assert 0 < by["dense", "loop"]["prefill_share"] < 1
    assert by["dense", "step"]["host_us"] > 0 and by["dense", "step"]["profile"]["calls"] == 20
    s = model.SIZES["tiny"]
    assert by["dense", "step"]["bytes_per_step"] == bounds.decode_bytes(s, 1, 16, 4)


def test_torchao_missing_is_one_row_that_says_how_to_install_it(recorded):
    if importlib.util.find_spec("torchao") is not None:
        pytest.skip("torchao is installed here")
    (row,) = [r for r in recorded["rows"] if r["weights"] == "torchao"]
    assert row["way"] == "all" and row["status"] == "unsupported"
    assert "pip install '.[llm]'" in row["message"] and "\n" not in row["message"]


def test_the_findings_and_tables_read_the_run(recorded):
    found = loop_findings.of(recorded)
    assert (found.size, found.batch, found.tokens) == ("tiny", 1, 6)
    by = _by(recorded)
    assert found.int8_loop.speedup == by["int8", "loop"]["speedup"]
    assert (found.step.way, found.loop.way, found.naive.way) == ("step", "loop", "naive")
    assert found.naive.vs_loop == by["dense", "naive"]["vs_loop"]
    assert found.torchao is None and found.torchao_loop is None  # torchao was not timed
    assert found.int4_loop is None and found.unwrapped is None and found.head is None
    assert found.naive_parted == ()  # on the CPU in fp32 the naive loop gives the loop's tokens
    assert found.dense_remainder is None  # no GPU profile on the CPU
    assert tables.loop_table(recorded).count("\n| ") == len(recorded["rows"])
    assert tables.loop_detail_table(recorded).count("\n| ") == len(recorded["rows"])


def test_a_way_that_fails_is_its_row_and_the_run_goes_on(monkeypatch):
    """An OOM at the dense step's first call: its row says so, the dense loops are not run
    (they would compile the step again), and the int8 weights are timed."""
    real = loop.first_call

    def first_call(way, made, *args):
        if way == "step" and not isinstance(made.model.layers[0].attention.wqkv,
                                            loop.int8.Int8Linear):
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real(way, made, *args)

    monkeypatch.setattr(loop, "first_call", first_call)
    torch._dynamo.reset()
    doc = loop.run(loop_config.LoopConfig(device="cpu", rounds=1, tokens=4,
                                          weights=("dense", "int8"), ways=("step", "loop"),
                                          sample_ms=1.0))
    torch._dynamo.reset()
    by = _by(doc)
    assert by["dense", "step"]["status"] == by["dense", "loop"]["status"] == "oom"
    assert "out of memory" in by["dense", "step"]["message"]
    assert by["dense", "loop"]["message"].startswith("step")  # not run: the step failed first
    assert by["int8", "step"]["status"] in ("ok", "noisy") and doc["complete"]


def test_the_loops_on_an_eager_step_give_eager_s_tokens_for_a_batch():
    m = model.build("tiny", "cpu", torch.float32)
    m.setup_cache(3, 32)
    prompt = torch.randint(0, m.shape.vocab, (3, 8), generator=torch.Generator().manual_seed(2))
    eager = model.generate(m, prompt, 5)
    before = graphs_compiled()
    assert torch.equal(decode_loop.generate(m, prompt, 5, model.decode_step), eager)
    assert torch.equal(decode_loop.generate_naive(m, prompt, 5, model.decode_step), eager)
    assert graphs_compiled() == before
    # the loop's bound: the prompt's forward and four steps, each reading the weights once
    assert decode_loop.loop_bytes(m, 3, 8, 5) == sum(bounds.decode_bytes(m.shape, 3, p, 4)
                                                     for p in range(7, 12))


def _step(weights, samples, host=None, busy=None):
    return {"weights": weights, "way": "step", "status": "ok",
            "latency_ms": {"median": sorted(samples)[len(samples) // 2], "iqr": 0.0,
                           "samples": samples},
            "host_us": host, "profile": {"busy_us_per_call": busy} if busy else None}


def test_torchao_s_loss_is_read_from_host_time_and_kernel_time():
    paced = {"rows": [_step("int8", [1.0, 1.0, 1.0], host=300, busy=900),
                      _step("torchao", [2.0, 2.0, 2.0], host=1900, busy=950),
                      _step("torchao-unwrapped", [1.0, 1.0, 1.0])]}
    t = loop_findings.torchao(paced)
    assert t.ratio == pytest.approx(0.5) and t.verdict is Verdict.SLOWER
    assert t.cause is loop_findings.Cause.HOST
    u = loop_findings.pair(paced, "torchao-unwrapped", "torchao", ("loop", "step"))
    assert (u.way, u.ratio, u.verdict) == ("step", pytest.approx(2.0), Verdict.PAYS)
    assert loop_findings.pair(paced, "int8-head", "int8", ("loop", "step")) is None
    c = loop_findings.cause
    # busy 600 µs longer for a step 1,000 µs longer: the kernels hold more than half of it
    assert c(Verdict.SLOWER, 200, 1500, 200, 900, 1000) is loop_findings.Cause.KERNELS
    assert c(Verdict.SLOWER, 200, 1000, 200, 900, 1000) is loop_findings.Cause.UNKNOWN
    assert c(Verdict.SLOWER, None, 1000, 200, 900, 1000) is loop_findings.Cause.UNKNOWN
    assert c(Verdict.WITHIN_NOISE, 900, 100, 1, 1, 0) is loop_findings.Cause.NOT_SLOWER
    assert loop_findings.torchao({"rows": paced["rows"][:1]}) is None


def test_the_named_large_sizes_are_llama_s_shapes_built_in_bf16_without_a_copy():
    assert 6.7e9 < model.SIZES["7b"].params < 6.8e9
    assert 8.0e9 < model.SIZES["8b"].params < 8.1e9
    built = model.build("8b", "meta", torch.bfloat16)
    assert {p.dtype for p in built.parameters()} == {torch.bfloat16}
    assert sum(p.numel() for p in built.parameters()) == model.SIZES["8b"].params
    assert torch.get_default_dtype() == torch.float32  # restored after the build
    twin = model.sibling(built)
    assert twin.output.weight is built.output.weight and twin is not built


@pytest.mark.parametrize("argv, expect", [
    (["--size", "huge"], "huge"),
    (["--batch", "0"], "--batch"),
    (["--tokens", "1"], "--tokens"),
    (["--tokens", "0"], "--tokens"),
    (["--tokens", "60"], "below prompt+tokens=76"),  # the CPU cache of 64, a prompt of 16
    (["--weights", "dense,int2"], "unknown weights 'int2'"),
    (["--ways", "step,fast"], "unknown way 'fast'"),
    (["--rung", "eager"], "--rung"),
    (["--device", "cpu"], "--output"),
])
def test_mistakes_get_one_line_and_exit_2(argv, expect, capsys, tmp_path):
    out = [] if "--device" in argv else ["--device", "cpu", "--output", str(tmp_path / "x.json")]
    assert_one_line_error(*run(loop.main, capsys, *argv, *out), expect, prog=loop.PROG)


@pytest.mark.gpu
def test_on_a_gpu_each_step_is_one_cuda_graph_and_the_loops_compile_nothing_more():
    """The tiny decoder under the default recipe (CUDA graphs, coordinate-descent tuning): the
    in-place position and the Python-made one replay the step's graph, never a new one."""
    torch._dynamo.reset()
    doc = loop.run(loop_config.LoopConfig(device="cuda", size="tiny", rounds=2, tokens=8,
                                          weights=("dense", "int8"), profile=True))
    by = _by(doc)
    for w in ("dense", "int8"):
        assert by[w, "step"]["status"] in ("ok", "noisy") and by[w, "step"]["cudagraph_skips"] == 0
        assert by[w, "loop"]["compiles"] == by[w, "naive"]["compiles"] == 0
        assert by[w, "naive"]["tokens"] == by[w, "loop"]["tokens"]
        assert by[w, "step"]["host_us"] > 0 and by[w, "step"]["profile"]["kernels_per_call"] > 0
    assert doc["compiles_while_timed"] == 0
    # new kernels only: a warm cache may hold every kernel, so no count is asserted
    assert set(doc["tuned"]) == {"dense", "int8"}
    assert all(c.get("num_warps") for t in doc["tuned"].values() for c in t.values())


def test_the_remainder_splits_a_profiled_step_into_gaps_library_and_inductor_kernels():
    row = {**_step("dense", [4.0]), "bytes_per_step": 8e9, "of_copy_bw": 0.5,
           "profile": {"busy_us_per_call": 3600.0,
                       "by_class": {"matmul": 400.0, "triton": 3200.0, "other": 0.0},
                       "top": [{"name": "triton_red_fused_mm_0", "us_per_call": 2000.0},
                               {"name": "cudnn_sdpa_flash", "us_per_call": 400.0}]}}
    r = loop_findings.remainder(row, copy_gbps=4000.0)  # 8 GB at 4,000 GB/s: 2 ms
    assert (r.share, r.outside_us, r.library_us, r.inductor_us) == (50.0, 400.0, 400.0, 3200.0)
    assert r.busy_share == pytest.approx(100 * 2 / 3.6)
    assert r.inductor_share == pytest.approx(62.5) and r.library_top == "cudnn_sdpa_flash"
    assert r.top == (("triton_red_fused_mm_0", 2000.0), ("cudnn_sdpa_flash", 400.0))
    assert not r.in_kernels  # 400 µs of 4,000 with no kernel running: a tenth, not under it
    assert loop_findings.remainder(_step("dense", [4.0]), 4000.0) is None  # no profile
