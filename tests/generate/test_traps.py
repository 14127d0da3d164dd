"""snippets.generate.traps: compile counts of each trap and its fix, tokens, schema, errors.

Counted with Dynamo alone (``--backend eager``): the counts are Dynamo's, the same with
Inductor, and the run takes seconds instead of minutes of kernel compiles on two cores."""

from __future__ import annotations

import pytest
import torch

from snippets.core import results
from snippets.generate import model as M
from snippets.generate import findings, traps
from tests.cli_run import assert_one_line_error, run


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("traps") / "generate-traps.json"
    assert traps.main(["--device", "cpu", "--size", "tiny", "--backend", "eager",
                       "--rounds", "2", "--output", str(out)]) == 0
    doc = results.load(out, traps.KIND)
    return {(r["trap"], r["variant"]): r for r in doc["rows"]}, doc


def test_every_trap_and_its_fix_is_a_row_and_matches_eager(recorded):
    by, doc = recorded
    assert doc["complete"] and {t for t, _ in by} == set(traps.TRAPS)
    assert all(r["status"] in ("ok", "noisy") and r["tokens_match"] for r in by.values())


def test_a_growing_cache_compiles_again_until_its_length_is_dynamic(recorded):
    by, doc = recorded
    grown, static = by["growing-cache", "torch.cat"], by["growing-cache", "static cache"]
    assert grown["compiles"] > 1 and grown["compiled_at"] == list(range(grown["compiles"]))
    assert grown["compiles"] < doc["provenance"]["settings"]["steps"] - 1  # then no more
    assert static["compiles"] == 1 and static["step_ms"]["samples"]
    assert static["speedup"] is not None
    assert grown["compiles_while_timed"] == static["compiles_while_timed"] == 0


def test_the_findings_set_each_trap_beside_its_fix(recorded):
    by, doc = recorded
    found = findings.traps(doc)
    grown = by["growing-cache", "torch.cat"]
    assert (found.growing_cache.compiles, found.growing_cache.compile_s) == (
        grown["compiles"], grown["compile_s"])
    assert found.growing_cache.speedup == by["growing-cache", "static cache"]["speedup"]
    assert found.prompt_lengths.fix_compiles == by["prompt-lengths", "pad to buckets"]["compiles"]
    assert found.item_sync.trap == "item-sync"
    assert findings.traps({"rows": doc["rows"][:1]}).growing_cache is None  # its fix is missing


def test_padding_to_buckets_compiles_at_most_once_per_bucket(recorded):
    by, doc = recorded
    s = doc["provenance"]["settings"]
    assert by["prompt-lengths", "dynamic=False"]["compiles"] == len(s["lengths"])
    assert by["prompt-lengths", "automatic dynamic"]["compiles"] < len(s["lengths"])
    padded = by["prompt-lengths", "pad to buckets"]
    assert 1 <= padded["compiles"] <= len(s["buckets"]) and padded["tokens_match"]


def test_a_padded_prompt_gives_the_first_token_of_the_unpadded_one():
    m = M.build("tiny", "cpu", torch.float32)
    m.setup_cache(1, 64)
    prompt = torch.randint(0, m.shape.vocab, (1, 11), generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        padded, last = traps.pad(prompt, (16, 32))
        assert padded.shape == (1, 16)
        assert torch.equal(traps.prefill_padded(m, padded, last), M.prefill(m, prompt))


@pytest.mark.parametrize("argv, expect", [
    (["--size", "huge"], "huge"),
    (["--traps", "growing-cache,sleep"], "unknown trap 'sleep'"),
    (["--buckets", "8"], "needs a bucket"),
    (["--prompt", "120"], "--cache: below prompt+steps=132"),
    (["--steps", "0"], "--steps"),
])
def test_mistakes_get_one_line_and_exit_2(argv, expect, capsys, tmp_path):
    out = ["--device", "cpu", "--output", str(tmp_path / "x.json")]
    assert_one_line_error(*run(traps.main, capsys, *argv, *out), expect, prog=traps.PROG)
