"""snippets.generate: the decoder's steps, the run of eager against compiled, its errors."""

from __future__ import annotations

import pytest
import torch

from snippets import generate
from snippets.core import results
from snippets.generate import __main__ as cli_main
from snippets.generate import bounds, findings, model, tables


def _tiny(batch=2, length=32):
    m = model.build("tiny", "cpu", torch.float32)
    m.setup_cache(batch, length)
    seeded = torch.Generator().manual_seed(0)
    return m, torch.randint(0, m.shape.vocab, (batch, 8), generator=seeded)


def test_the_named_sizes_count_their_parameters_as_the_built_model_holds_them():
    for name in ("tiny", "small"):
        built = model.build(name, "meta", torch.float32)
        assert sum(p.numel() for p in built.parameters()) == model.SIZES[name].params
    assert 1.0e9 < model.SIZES["1b"].params < 1.2e9


def test_a_prompt_fed_at_once_gives_the_logits_of_feeding_it_token_by_token():
    m, prompt = _tiny()
    whole = m(prompt, torch.arange(8))
    m.setup_cache(2, 32)
    steps = [m(prompt[:, i:i + 1], torch.tensor([i])) for i in range(8)]
    torch.testing.assert_close(torch.cat(steps, dim=1), whole, rtol=1e-5, atol=1e-5)


def test_grouped_query_attention_without_repeated_heads_generates_the_same_tokens():
    m, prompt = _tiny()
    repeated = model.generate(m, prompt, 6)
    m.set_gqa(True)
    m.setup_cache(2, 32)
    assert torch.equal(model.generate(m, prompt, 6), repeated)


def test_the_bounds_count_weights_and_the_cache_to_the_position():
    s = model.SIZES["tiny"]
    assert bounds.decode_bytes(s, 1, 15, 4) == 4 * s.matmul_params + s.cache_bytes(1, 16, 4)
    assert bounds.flops(s, 2, 8, 8) == 2 * s.matmul_params * 16 + 4 * s.layers * 2 * 8 * 8 * s.dim


def test_a_cpu_run_times_both_phases_and_its_compiled_tokens_match_eager(tmp_path):
    out = tmp_path / "generate.json"
    assert cli_main.main(["--device", "cpu", "--rounds", "2", "--steps", "4", "--prompt", "8",
                          "--cache", "16", "--output", str(out), "--format", "json"]) == 0
    doc = results.load(out, generate.KIND)
    assert doc["complete"] and [(r["phase"], r["variant"]) for r in doc["rows"]] == [
        ("decode", "eager"), ("decode", "default"), ("prefill", "eager"), ("prefill", "default")]
    assert all(r["status"] in ("ok", "noisy") for r in doc["rows"])
    compiled = [r for r in doc["rows"] if r["variant"] == "default"]
    assert all(r["first_diff"] is None for r in compiled)  # fp32: the same greedy tokens
    decode = doc["rows"][0]
    assert decode["bytes"] == bounds.decode_bytes(model.SIZES["tiny"], 1, 8, 4)
    assert doc["provenance"]["ceilings"]["copy_gbps"] > 0
    assert tables.phase_table(doc, "decode").count("\n| 1 · ") == 2
    found = findings.of(doc)  # batch 1 only: the page's batch 32 has no row
    assert (found.decode_1.phase, found.decode_1.batch, found.decode_1.variant) == (
        "decode", 1, "default")
    assert found.prefill_1.phase == "prefill" and found.decode_32 is found.prefill_32 is None


@pytest.mark.parametrize("argv, flag", [
    (["--size", "huge"], "--size"),
    (["--batch-sizes", "0"], "--batch-sizes"),
    (["--prompt", "60", "--cache", "64"], "--cache"),
    (["--variants", "fast"], "--variants"),
])
def test_mistakes_get_one_line_and_exit_2(argv, flag, capsys):
    with pytest.raises(SystemExit) as exc:
        cli_main.main(["--device", "cpu", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and flag in err[0]


def test_the_page_s_compiled_step_generates_eager_s_tokens_on_the_cpu():
    m, prompt = _tiny()
    eager = model.generate(m, prompt, 4)
    # reduce-overhead's CUDA graphs are skipped off CUDA; the compiled step is the same graph
    assert torch.equal(model.generate(m, prompt, 4, step=model.compile_step()), eager)


@pytest.mark.gpu
def test_a_cuda_run_of_the_small_size_times_every_mode_and_compares_its_tokens(tmp_path):
    out = tmp_path / "generate.json"
    assert cli_main.main(["--device", "cuda", "--size", "small", "--batch-sizes", "1",
                          "--rounds", "3", "--output", str(out), "--format", "json"]) == 0
    doc = results.load(out, generate.KIND)
    assert {r["variant"] for r in doc["rows"]} == {"eager", "default", "reduce-overhead"}
    assert all(r["status"] in ("ok", "noisy") for r in doc["rows"])
    compiled = [r for r in doc["rows"] if r["variant"] != "eager"]
    # bf16: the tokens may part from eager's, but only where eager's logits nearly tie
    assert all(r["first_diff"] is None or r["logit_gap"] < 0.5 for r in compiled)
    assert all(0 < r["pct_of_bandwidth"] < 100 for r in doc["rows"] if r["phase"] == "decode")


def test_every_compiled_variant_says_what_it_passes_to_torch_compile():
    assert set(generate.COMPILE_ARGS) == set(generate.VARIANTS) - {"eager"}
    # a mode and options together are refused by torch.compile
    assert not any({"mode", "options"} <= set(a) for a in generate.COMPILE_ARGS.values())


def test_the_shape_table_has_a_cell_under_every_header():
    doc = {"provenance": {"settings": {"shape": vars(model.SIZES["1b"]), "params": 1,
                                       "dtype": "bf16"}}}
    lines = tables.shape_table(doc).splitlines()
    assert len({line.count("|") for line in lines}) == 1 and "2.08 GB bf16" in lines[2]


def _timed(phase, batch, variant, samples):
    return {"phase": phase, "batch_size": batch, "variant": variant, "status": "ok",
            "latency_ms": {"median": sorted(samples)[len(samples) // 2], "iqr": 0.0,
                           "samples": samples}}


def test_one_variant_against_another_is_paired_by_round_within_each_file_only():
    slower = {"rows": [_timed("decode", 8, "reduce-overhead", [1.0, 1.0, 1.0]),
                       _timed("decode", 8, "max-autotune", [1.25, 1.25, 1.25]),
                       _timed("decode", 32, "max-autotune", [2.0, 2.0, 2.0]),
                       _timed("decode", 1, "reduce-overhead", [1.0, 1.0, 1.0, 1.0]),
                       _timed("decode", 1, "max-autotune", [0.5, 0.5, 0.4, 0.4])]}
    tied = {"rows": [_timed("prefill", 1, "reduce-overhead", [1.0, 2.0, 1.0]),
                     _timed("prefill", 1, "max-autotune", [1.0, 2.0, 1.0])]}
    found = findings.against(slower, None, tied)
    # decode at 32 had no reduce-overhead row beside it: not a paired batch
    assert [(p.phase, p.batch) for p in found.pairs] == [
        ("decode", 8), ("decode", 1), ("prefill", 1)]
    assert found.pairs[0].ratio == pytest.approx(0.8) and found.paired == 3
    assert found.slower == 1 and found.slower_ratios.high == pytest.approx(0.8)
    assert found.decode_slower == (8,) and found.prefill_slower == ()
    one = found.decode_1  # per round 2, 2, 2.5, 2.5: a gain beyond its spread
    assert one.batch == 1 and one.verdict is findings.Verdict.PAYS and found.gain is one
    assert one.band == pytest.approx(one.spread / 2) and one.band > 0
    assert found.pairs[2].verdict is findings.Verdict.WITHIN_NOISE
    assert findings.against(tied).gain is None and findings.against(tied).slower_ratios is None


def test_the_products_alone_split_max_autotune_s_loss_in_two():
    doc = {"rows": [_timed("decode", 8, "reduce-overhead", [1.0, 1.0, 1.0]),
                    _timed("decode", 8, "max-autotune-gemm", [1.1, 1.1, 1.1]),
                    _timed("decode", 8, "max-autotune", [1.5, 1.5, 1.5]),
                    _timed("decode", 32, "reduce-overhead", [2.0, 2.0, 2.0]),
                    _timed("decode", 32, "max-autotune", [2.5, 2.5, 2.5])]}
    found = findings.split(doc)
    assert tables.split_table(doc).count("\n| ") == 1  # one row: batch 8
    # batch 32 had no products-only row: not split
    assert [(s.products.phase, s.batch) for s in found.splits] == [("decode", 8)]
    (s,) = found.splits
    assert s.products.ratio == pytest.approx(1 / 1.1)
    assert s.rest == pytest.approx(1.1 / 1.5) and s.rest_loses_more and found.rest_loses_more
    assert not findings.split(None).rest_loses_more


def _recipe_doc(size, rows):
    return {"provenance": {"settings": {"size": size}, "device": "GPU"}, "rows": rows}


def test_the_decode_figure_is_the_median_of_every_run_of_the_recipe():
    """A generate run's reduce-overhead variant and a ladder's cudagraphs rung are one
    configuration; other variants, rungs, prefill and failed rows are not counted."""
    gen = _recipe_doc("1b", [
        {"phase": "decode", "batch_size": 1, "variant": "reduce-overhead", "status": "ok",
         "speedup": 17.0},
        {"phase": "decode", "batch_size": 1, "variant": "default", "status": "ok", "speedup": 3.0},
        {"phase": "prefill", "batch_size": 1, "variant": "reduce-overhead", "status": "ok",
         "speedup": 9.0},
        {"phase": "decode", "batch_size": 32, "variant": "reduce-overhead", "status": "ok",
         "speedup": 12.0}])
    tuned = _recipe_doc("1b", [
        {"phase": "decode", "batch_size": 1, "variant": "reduce-overhead", "status": "noisy",
         "speedup": 13.5},
        {"phase": "decode", "batch_size": 32, "variant": "reduce-overhead", "status": "error",
         "speedup": None}])
    ladder = _recipe_doc("1b", [
        {"batch_size": 1, "rung": "cudagraphs", "status": "ok", "speedup": 13.0},
        {"batch_size": 1, "rung": "gqa", "status": "ok", "speedup": 14.0}])
    found = findings.figures(gen, None, tuned, ladder)
    one, many = found.at(1), found.at(32)
    assert (one.runs, one.median, one.speedup.low, one.speedup.high) == (3, 13.5, 13.0, 17.0)
    assert (many.runs, many.median) == (1, 12.0)
    assert found.at(8) is None and found.at(1, size="small") is None
    assert found.batch_1 is one and found.batch_32 is many
    # the key is the one every page's headline names this configuration by
    assert one.key.split(" · ") == ["GPU", "decoder 1b", "batch 1", "decode, reduce-overhead"]


def test_the_recorded_decode_figures_cover_every_recorded_run_of_the_recipe():
    """On the committed H200 runs: batch 1 from three runs, batch 32 from two (the decode table's
    and the max-autotune-gemm command's, whose eager rows differ)."""
    folder = results.ROOT / "docs" / "results" / "nvidia-h200_torch-2.11.0"
    docs = [results.load(folder / f"{k}.json") for k in (
        "generate", "generate-max-autotune", "generate-max-autotune-gemm", "generate-ladder")]
    found = findings.figures(*docs)
    assert (found.at(1).runs, found.at(32).runs) == (3, 2)
    assert found.at(1).speedup.low < found.at(1).median < found.at(1).speedup.high


def test_each_variant_at_each_batch_size_compiles_within_its_own_recompile_budget():
    """``--variants all`` at batch 1, 8, 32 compiled one ``decode_step`` 12 times against one
    budget of 8, and ``fullgraph=True`` raised past it. The CPU's compiled variants at three batch
    sizes, under a budget of 2 so that any sharing would show (each compiles its step twice: the
    first call's token is a slice of the prefill's logits, generate's a clone, and Dynamo guards
    the stride): every row ran, compiled."""
    from torch._dynamo.utils import counters

    cfg = generate.GenerateConfig(
        device="cpu", size="tiny", batch_sizes=(1, 2, 3), phases=("decode",),
        variants=("eager", "default", "reduce-overhead"), dtype="fp32", prompt=4, cache=8,
        steps=2, rounds=1, sample_ms=1.0).resolve()
    torch._dynamo.reset()
    before = counters["stats"]["unique_graphs"]
    with torch._dynamo.config.patch(recompile_limit=2):
        doc = generate.produce(cfg)
    assert [(r["batch_size"], r["variant"], r["status"] in ("ok", "noisy")) for r in doc["rows"]
            ] == [(b, v, True) for b in (1, 2, 3) for v in ("eager", "default", "reduce-overhead")]
    assert counters["stats"]["unique_graphs"] - before >= 6  # each compiled (variant, batch) ran
    torch._dynamo.reset()
