"""snippets.production's library: the eager switch, warm-up and the recompile stance, the steady
point of a timeline, pinned artifacts, merged results, and the stream's compile counts."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from snippets import production
from snippets.core import results
from snippets.dynamic import TinyEncoder
from snippets.production import modes, paths, pinning, serving_findings, startup, stream, tables

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


class Counter:
    """A backend that counts the graphs it is given and runs them as traced."""

    def __init__(self) -> None:
        self.graphs = 0

    def __call__(self, gm, example_inputs):
        self.graphs += 1
        return gm.forward


@pytest.fixture
def default_stance():
    yield
    torch.compiler.set_stance("default")


@pytest.mark.usefixtures("default_stance")
def test_the_eager_switch_compiles_nothing_and_answers_as_eager():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 4)).eval()
    x = torch.randn(3, 16)
    counter = Counter()
    served = production.serve(model, eager=True, backend=counter)
    with torch.no_grad():
        assert torch.equal(served(x), model(x))
    assert counter.graphs == 0
    served = production.serve(model, eager=False, backend=counter)
    with torch.no_grad():
        served(x)
    assert counter.graphs == 1  # the same call with the switch off compiles


@pytest.mark.parametrize(("value", "eager"), [("1", True), ("yes", True), ("0", False),
                                                ("", False)])
def test_the_switch_is_read_from_the_environment_given(value, eager):
    assert production.eager_requested({production.EAGER_ENV: value}) is eager
    assert production.eager_requested({}) is False


def test_after_warm_up_an_unseen_shape_is_refused():
    compiled = torch.compile(TinyEncoder().eval(), backend="eager", dynamic=False)
    served = [(2, 32, 64), (4, 64, 64)]
    assert production.warm_up(compiled, served) == 2
    with torch.no_grad(), stream.locked(True):
        for shape in served:
            compiled(torch.randn(shape))  # warmed up: nothing to compile
        with pytest.raises(RuntimeError, match="[Rr]ecompil"):
            compiled(torch.randn(4, 48, 64))


def test_the_stream_compiles_nothing_after_a_warm_up():
    cfg = stream.StreamConfig(device="cpu", requests=40, backend="eager",
                              strategies=("no warm-up", "warm-up", "warm-up, buckets"))
    doc = stream.document(cfg)
    assert results.validate(doc, kind=stream.KIND) and doc["complete"]
    rows = {r["strategy"]: r for r in doc["rows"]}
    assert rows["no warm-up"]["compiles"] > 0
    assert rows["warm-up"]["compiles"] == rows["warm-up, buckets"]["compiles"] == 0
    assert rows["warm-up, buckets"]["warmup_compiles"] == len(stream.bucket_shapes())
    assert all(r["status"] == "ok" and r["all_correct"] for r in doc["rows"])
    assert "warm-up" in tables.stream(doc)
    assert serving_findings.stream(doc).clean == ("warm-up", "warm-up, buckets")
    assert (doc["provenance"]["settings"]["mode"],
            doc["provenance"]["settings"]["inductor_cache"].split(" (")[0]) == (
        "default", "empty per strategy")


@pytest.mark.gpu
def test_under_cuda_graphs_buckets_and_a_warm_up_on_every_shape_compile_nothing_after_it():
    cfg = stream.StreamConfig(device="cuda", requests=40, mode="reduce-overhead",
                              strategies=("warm-up", "warm-up, buckets"))
    doc = stream.document(cfg)
    assert doc["provenance"]["settings"]["mode"] == "reduce-overhead"
    assert [(r["strategy"], r["status"], r["compiles"], r["all_correct"]) for r in doc["rows"]
            ] == [("warm-up", "ok", 0, True), ("warm-up, buckets", "ok", 0, True)]


def test_the_large_stream_sends_its_own_traffic_and_compiles_nothing_after_a_warm_up():
    # The large size's requests and buckets, to an encoder kept narrow (width is a field of its
    # own) so that the run stays quick: what is checked is the traffic, the counts and the file.
    cfg = stream.StreamConfig(device="cpu", size="large", requests=12, width=32,
                              backend="eager", strategies=("eager", "warm-up, buckets"))
    doc = stream.document(cfg)
    assert results.validate(doc, kind=stream.KIND) and doc["complete"]
    settings = doc["provenance"]["settings"]
    assert (settings["size"], settings["heads"], settings["batches"], settings["seq"]) == (
        "large", 16, [4, 8, 12, 16], [256, 512])
    rows = {r["strategy"]: r for r in doc["rows"]}
    assert rows["warm-up, buckets"]["warmup_compiles"] == len(
        stream.bucket_shapes(stream.SIZES["large"])) == 4
    assert rows["warm-up, buckets"]["compiles"] == 0
    assert all(r["status"] == "ok" and r["all_correct"] for r in doc["rows"])
    for b, s in stream.request_stream(50, 0, stream.SIZES["large"]):
        assert b in (4, 8, 12, 16) and 256 <= s <= 512


def test_the_large_size_defaults_and_refuses_an_unknown_one():
    from snippets.core import config

    large = stream.StreamConfig(device="cpu", size="large").resolve()
    assert (large.width, large.requests) == (1024, 16)
    assert stream.StreamConfig(device="cpu").resolve().width == 64
    with pytest.raises(config.ConfigError, match="invalid choice: 'huge'"):
        stream.StreamConfig(size="huge")


def test_padding_to_a_bucket_keeps_the_real_positions():
    x = torch.randn(3, 50, 64)
    padded = stream.pad_to_bucket(x)
    assert padded.shape[:2] == (4, 64) and torch.equal(padded[:3, :50], x)
    assert stream.request_stream(50, seed=1) == stream.request_stream(50, seed=1)


def test_the_steady_point_is_after_the_slow_calls():
    assert production.steady_index([900.0, 40.0, 1.1, 1.0, 1.0, 1.2, 0.9, 1.0]) == 2
    assert production.steady_index([1.0, 1.0, 1.0]) == 0
    with pytest.raises(ValueError):
        production.steady_index([])


def test_a_pinned_file_is_refused_under_another_stamp(tmp_path):
    here = pinning.current(torch.device("cpu"))
    target = tmp_path / "artifacts.bin"
    pinning.write(target, b"compiled", here)
    assert pinning.read(target, here) == b"compiled"
    other = {**here, "torch": "2.11.0+cu130"}
    with pytest.raises(pinning.StampMismatch) as exc:
        pinning.read(target, other)
    message = str(exc.value)
    assert "\n" not in message and "2.11.0+cu130" in message and here["torch"] in message
    pinning.stamp_path(target).unlink()
    with pytest.raises(pinning.StampMismatch, match="no readable stamp"):
        pinning.check(target, here)


def test_regional_compilation_finds_the_repeated_blocks():
    layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 3, enable_nested_tensor=False)
    assert len(paths.blocks(encoder)) == 3
    with pytest.raises(paths.NoBlocks):
        paths.blocks(nn.Linear(2, 2))


def test_every_path_is_available_on_this_torch():
    assert [p for p in paths.NEEDS if paths.missing(p)] == []
    paths.NEEDS["future"] = ("torch.compiler.no_such_function",)
    try:
        assert "no torch.compiler.no_such_function" in paths.missing("future")
    finally:
        del paths.NEEDS["future"]


def test_a_precompiled_function_takes_new_weights_and_refuses_a_shape_it_was_not_compiled_for(
        tmp_path):
    # The file holds code and guards, not weights: another model of the same layers runs through
    # it. Its guards check every call, and a failed guard raises instead of compiling again.
    torch.manual_seed(0)
    model, other, x = nn.Linear(8, 4).eval(), nn.Linear(8, 4).eval(), torch.randn(2, 8)
    fn = paths.load_precompiled(paths.precompile(model, x, tmp_path / "call.precompiled"))
    with torch.no_grad():  # as it was built: grad mode is one of the guards
        torch.testing.assert_close(fn(other, x), other(x))
        with pytest.raises(RuntimeError, match="GuardManager check failed"):
            fn(other, torch.randn(3, 8))
    with pytest.raises(RuntimeError, match="grad_mode"):
        fn(other, x)


def test_a_dynamic_precompiled_function_serves_another_batch_size(tmp_path):
    torch.manual_seed(0)
    model = nn.Linear(8, 4).eval()
    fn = paths.load_precompiled(paths.precompile(model, torch.randn(2, 8), tmp_path / "f",
                                                 dynamic=True))
    with torch.no_grad():
        for n in (3, 17):
            x = torch.randn(n, 8)
            torch.testing.assert_close(fn(model, x), model(x))


def test_a_precompiled_file_holds_its_cpu_kernels_as_source_not_as_a_library(tmp_path):
    # What a load on an empty cache folder compiles again: the C++ of Inductor's kernels.
    model, x = nn.Sequential(nn.Linear(8, 8), nn.GELU()).eval(), torch.randn(2, 8)
    data = paths.precompile(model, x, tmp_path / "f").read_bytes()
    assert b'extern "C"' in data and b"\x7fELF" not in data


@pytest.mark.skipif(not hasattr(__import__("os"), "RTLD_NOLOAD"), reason="Linux's loader only")
def test_loading_a_package_shares_the_loaded_cxx_runtime():
    # torch is imported, so its libstdc++ is mapped; sharing it loads nothing new.
    shared = paths.share_cxx_runtime()
    assert shared is not None and "libstdc++.so" in shared


def test_a_path_torch_lacks_is_a_row_not_a_crash(monkeypatch):
    monkeypatch.setattr(paths, "missing", lambda p: "torch 9 has no x" if p == "aot-build"
                        else None)
    cfg = startup.StartupConfig(device="cpu", models=("snippets.core.models:tiny_mlp",),
                                paths=("aot-build", "aot-load", "aot-load-warm"),
                                repetitions=1).resolve()
    rows = list(startup.run(cfg, "2026-01-01"))
    assert [(r["path"], r["status"]) for r in rows] == [("aot-build", "unsupported"),
                                                         ("aot-load", "error"),
                                                         ("aot-load-warm", "error")]
    assert rows[1]["message"].startswith("aot-build")
    assert rows[2]["message"].startswith("aot-load")


def test_merge_keeps_earlier_rows_and_refuses_another_device():
    prov = results.provenance(torch.device("cpu"), {"models": ["a"]}, commit="x")
    old = results.new_document(startup.KIND, prov)
    old["rows"] = [{"date": "d1", "model": "m", "path": "eager", "rep": 0}]
    new = results.new_document(startup.KIND, {**prov, "date": "d2", "commit": "y",
                                              "settings": {"models": ["b"]}})
    new["rows"] = [{"date": "d2", "model": "m", "path": "eager", "rep": 0}]
    merged = production.merge(old, new, startup.row_key)
    assert [r["date"] for r in merged["rows"]] == ["d1", "d2"]
    # Each command's commit and what it ran stay in the file, not only the last command's.
    assert [p["commit"] for p in merged["provenance"]["parts"]] == ["x", "y"]
    assert [r["part"] for r in merged["rows"]] == [0, 1]
    assert merged["provenance"]["settings"]["models"] == ["a", "b"]
    other = {**old, "provenance": {**prov, "device": "NVIDIA H200"}}
    with pytest.raises(production.MergeError):
        production.merge(other, new, startup.row_key)


def test_a_file_is_complete_once_no_row_comes_from_an_interrupted_command():
    prov = results.provenance(torch.device("cpu"), {"modes": ["default"]}, commit="x")

    def command(date: str, batch_sizes: tuple[int, ...], complete: bool) -> dict:
        doc = results.new_document(modes.KIND, {**prov, "date": date})
        doc["rows"] = [{"model": "m", "batch_size": b, "mode": "max-autotune", "date": date}
                       for b in batch_sizes]
        return {**doc, "complete": complete}

    first = command("d1", (1, 32), True)
    cut = production.merge(first, command("d2", (1,), False), modes.row_key)
    assert not cut["complete"]  # its batch 32 never ran
    again = production.merge(cut, command("d3", (1, 32), True), modes.row_key)
    assert again["complete"] and {r["part"] for r in again["rows"]} == {2}
    assert [p["complete"] for p in again["provenance"]["parts"]] == [True, False, True]


def test_a_mode_added_later_stays_beside_its_own_eager_and_the_first_block_stays():
    prov = results.provenance(torch.device("cpu"), {"modes": ["default"]}, commit="x")
    old = results.new_document(modes.KIND, prov)
    old["rows"] = [{"model": m, "batch_size": 1, "mode": mode, "date": "d1"}
                   for m in ("resnet50", "transformer") for mode in ("eager", "default")]
    new = results.new_document(modes.KIND, {**prov, "date": "d2", "commit": "y",
                                            "settings": {"modes": ["max-autotune"]}})
    new["rows"] = [{"model": "resnet50", "batch_size": 1, "mode": mode, "date": "d2"}
                   for mode in ("eager", "max-autotune")]
    joined = production.merge(old, new, modes.row_key)
    # Each block keeps the eager row its speedups were taken against.
    assert [(r["model"], r["mode"], r["date"], r["part"]) for r in joined["rows"]] == [
        ("resnet50", "eager", "d1", 0), ("resnet50", "default", "d1", 0),
        ("transformer", "eager", "d1", 0), ("transformer", "default", "d1", 0),
        ("resnet50", "eager", "d2", 1), ("resnet50", "max-autotune", "d2", 1)]
    assert joined["provenance"]["settings"]["modes"] == ["default", "max-autotune"]
