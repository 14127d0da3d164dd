"""python -m snippets.production on models nobody here wrote: a transformers GPT-2 (token ids in, a
``ModelOutput`` out) and BERT (keyword arguments with an attention mask) start along each path in
fresh processes, their answers checked leaf by leaf; a path that cannot serve a model is a row
with its reason; a factory that builds no (module, example) stops the run with one line."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from snippets.core import examples, results
from snippets.production import modes, paths, startup
from snippets.production.__main__ import main
from tests import cli_run, real_models

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
NEEDS = {"gpt2": "transformers", "bert": "transformers", "two_inputs": None}


def _startup(capsys, tmp_path, factory: str, paths_: str) -> dict[str, dict]:
    """A short start-up run of ``tests.real_models:<factory>`` on the CPU; its rows by path."""
    if NEEDS[factory]:
        pytest.importorskip(NEEDS[factory])
    out = tmp_path / "startup.json"
    code, _, err = cli_run.run(
        main, capsys, "--startup", "--device", "cpu", "--models", f"tests.real_models:{factory}",
        "--paths", paths_, "--batch-size", "2", "--repetitions", "1", "--calls", "2",
        "--rounds", "1", "--format", "json", "--output", str(out))
    assert code == 0, err
    return {r["path"]: r for r in results.load(out, startup.KIND)["rows"]}


@pytest.mark.parametrize("factory", ["gpt2", "bert"])
def test_eager_compile_and_cache_artifacts_answer_as_eager(capsys, tmp_path, factory):
    rows = _startup(capsys, tmp_path, factory, "eager,compile-empty,artifacts")
    assert {p: r["status"] for p, r in rows.items()} == dict.fromkeys(rows, "ok"), \
        {p: r["message"] for p, r in rows.items()}
    assert rows["compile-empty"]["graphs_compiled"] >= 1
    assert all(r["rel_err"] < 1e-4 for r in rows.values())


@pytest.mark.slow
@pytest.mark.parametrize("factory", ["gpt2", "bert"])
def test_a_package_and_regional_blocks_serve_a_real_model(capsys, tmp_path, factory):
    # The package's request is the saved example (ids and mask as they were), its answer a
    # ModelOutput rebuilt after importing the module that defines it. A precompiled function
    # is a row whatever this torch makes of the model's guards: ok, or an error with its reason.
    rows = _startup(capsys, tmp_path, factory, "regional,aot-build,aot-load,aot-load-warm,"
                                               "precompile-build,precompile-load")
    for path in ("regional", "aot-build", "aot-load", "aot-load-warm"):
        assert rows[path]["status"] == "ok", (path, rows[path]["message"])
    assert rows["aot-load"]["output_imports"] == ["transformers.modeling_outputs"]
    assert rows["aot-load"]["rel_err"] < 1e-4 and rows["aot-load"]["graphs_compiled"] == 0
    build = rows["precompile-build"]
    assert build["status"] in ("ok", "error") and "\n" not in build["message"]
    if build["status"] == "error":
        assert "precompile-build" in rows["precompile-load"]["message"]


def test_a_tuple_of_inputs_with_a_boolean_mask_is_packaged_and_loaded(capsys, tmp_path):
    # The request saved beside the package is the tuple as it was, the mask still boolean.
    rows = _startup(capsys, tmp_path, "two_inputs", "aot-build,aot-load")
    assert {p: r["status"] for p, r in rows.items()} == dict.fromkeys(rows, "ok"), \
        {p: r["message"] for p, r in rows.items()}
    assert rows["aot-load"]["output_imports"] == []  # a tuple needs no library to rebuild


def not_a_pair(batch_size: int) -> torch.Tensor:
    return torch.ones(batch_size)


def test_a_factory_that_builds_no_pair_stops_the_run_with_one_line(capsys, tmp_path):
    # Found by the first child (the parent never builds the model): after the progress line of
    # that path, one error line, exit code 2, and no later path is tried.
    code, out, err = cli_run.run(
        main, capsys, "--startup", "--device", "cpu", "--models",
        f"{__name__}:not_a_pair", "--paths", "eager,compile-empty", "--output",
        str(tmp_path / "r.json"))
    lines = err.strip().splitlines()
    assert code == 2 and "Traceback" not in out + err, err
    assert [ln for ln in lines if ": error: " in ln] == lines[-1:], err
    assert lines[-1].startswith("python -m snippets.production: error: ")
    assert "not_a_pair" in lines[-1] and "got Tensor" in lines[-1]
    assert not any("compile-empty" in ln for ln in lines)


class Keywords(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:
        y = self.proj(x) * mask.unsqueeze(-1)
        return {"hidden": y, "pooled": y.sum(1)}


def test_a_precompiled_function_takes_keyword_arguments(tmp_path):
    torch.manual_seed(0)
    model = Keywords().eval()
    ex = {"x": torch.randn(2, 3, 8), "mask": torch.ones(2, 3, dtype=torch.long)}
    fn = paths.load_precompiled(paths.precompile(model, ex, tmp_path / "f"))
    with torch.no_grad():  # as it was built
        got = examples.call(lambda *a, **kw: fn(model, *a, **kw), ex)
        want = examples.call(model, ex)
    assert examples.relative_error(got, examples.reference(want)) < 1e-6


@pytest.mark.parametrize("factory, lists", [
    ("gpt2", ["transformer.h"]),
    ("bert", ["encoder.layer"]),
    ("t5", ["encoder.block", "decoder.block"]),
])
def test_regional_compilation_finds_a_transformers_model_s_layers(factory, lists):
    pytest.importorskip("transformers")
    model, _ = getattr(real_models, factory)(1)
    found = paths.blocks(model)
    want = [m for name in lists for m in model.get_submodule(name)]
    assert len(found) == len(want) and all(a is b for a, b in zip(found, want, strict=True))


def test_a_model_without_a_layer_list_has_no_blocks():
    with pytest.raises(paths.NoBlocks):
        paths.blocks(nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)))
    nested = nn.ModuleList([nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)]) for _ in range(3)])
    assert paths.blocks(nn.Sequential(nested)) == list(nested)  # the outer list, not the inner


def test_the_modes_run_passes_a_user_s_model_to_the_benchmark_as_its_factory(tmp_path):
    cfg = modes.ModesConfig(models=("tests.real_models:two_inputs",), device="cpu").resolve()
    bc = cfg.bench_config("tests.real_models:two_inputs", 1, "default")
    argv = modes.bench_argv(bc, tmp_path / "o.json")
    assert "--models" not in argv
    assert argv[argv.index("--model") + 1] == "tests.real_models:two_inputs"
    assert modes.bench_argv(cfg.bench_config("resnet50", 1, "default"), tmp_path / "o.json")[
        3:5] == ["--models", "resnet50"]


def test_a_factory_the_benchmark_refuses_stops_the_modes_run_with_one_line(capsys, tmp_path):
    code, out, err = cli_run.run(
        main, capsys, "--modes", "--device", "cpu", "--models", f"{__name__}:not_a_pair",
        "--output", str(tmp_path / "r.json"))
    lines = err.strip().splitlines()
    assert code == 2 and "Traceback" not in out + err, err
    assert [ln for ln in lines if ": error: " in ln] == lines[-1:], err
    assert "must return (nn.Module, example), got Tensor" in lines[-1]
