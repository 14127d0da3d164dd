"""snippets.cpu: each runtime's answer against eager on tiny models, the rows a missing runtime
or a CPU without bf16 makes, a variant's own process from start to record, and the command's
one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch
import torch._inductor.config

from snippets import cpu
from snippets.core import examples, process, results
from snippets.cpu import __main__ as cli_main
from snippets.cpu import child, recipes
from snippets.explain.fastpath import fastpath
from tests.cli_run import assert_one_line_error, run
from tests.cpu import tiny

AVX512_BF16 = {"capability": "AVX512", "avx512_bf16": True, "amx_tile": False, "amx_bf16": False}
NO_BF16 = {"capability": "AVX2", "avx512_bf16": False, "amx_tile": False, "amx_bf16": False}


@pytest.fixture
def restored():
    """The process-wide switches a PyTorch variant sets (freezing, the encoder's fast path),
    put back after the test."""
    with torch._inductor.config.patch(freezing=False), fastpath(True):
        yield
    torch._dynamo.reset()


def _eager(factory):
    torch.manual_seed(0)
    model, x = factory(2)
    model.eval()
    with torch.no_grad():
        return model, x, examples.reference(examples.call(model, x))


@pytest.mark.parametrize("factory", [tiny.conv, tiny.text], ids=["conv", "text"])
def test_onnxruntime_and_openvino_at_fp32_answer_as_eager_does(factory, tmp_path):
    model, x, ref = _eager(factory)
    with torch.no_grad():
        ort_call, ort = recipes.onnxruntime_variant(model, x, tmp_path)
        ov_call, ov = recipes.openvino_variant(model, x, "f32")
        assert examples.relative_error(ort_call(), ref) <= cpu.TOLERANCE["fp32"]
        assert examples.relative_error(ov_call(), ref) <= cpu.TOLERANCE["fp32"]
    assert ov["chose"] == "fp32"


def test_openvino_default_names_the_precision_it_chose_and_answers_within_its_tolerance():
    model, x, ref = _eager(tiny.conv)
    with torch.no_grad():
        call, info = recipes.openvino_variant(model, x, None)
        err = examples.relative_error(call(), ref)
    assert info["chose"] in ("fp32", "bf16", "fp16")
    assert err <= cpu.TOLERANCE[info["chose"]]


@pytest.mark.parametrize("variant", ["compile", "compile-freezing", "compile-freezing-bf16"])
def test_compiled_variants_answer_as_eager_does(variant, restored):
    v = cpu.BY_KEY[variant]
    model, x, ref = _eager(tiny.conv)
    with torch.no_grad():
        call, info = recipes.torch_variant(model, x, compiled=True, freezing=v.freezing,
                                           bf16=v.precision == "bf16")
        err = examples.relative_error(call(), ref)
    assert err <= cpu.TOLERANCE[v.precision]
    assert info["channels_last"] is v.freezing  # an image model: freezing brings NHWC


def test_the_shown_recipe_answers_as_eager_does_in_bf16(restored):
    model, x, ref = _eager(tiny.conv)
    err = examples.relative_error(recipes.cpu_recipe(model, x, bf16=True)(), ref)
    assert err <= cpu.TOLERANCE["bf16"]


def test_a_missing_runtime_is_a_row_that_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "openvino", None)  # import openvino now fails
    ran = []
    monkeypatch.setattr(cpu, "_child", lambda cfg, model, batch, v, workdir: ran.append(v.key)
                        or {"status": "ok", "message": ""})
    cfg = cpu.CpuConfig(models=("resnet50",), batch_sizes=(1,), precisions=("fp32", "auto"))
    rows = {r["variant"]: r for r in cpu.run(cfg)}
    for key in ("openvino-f32", "openvino"):
        assert rows[key]["status"] == "unsupported"
        assert cpu.INSTALL in rows[key]["message"] and "openvino" in rows[key]["message"]
    assert "openvino" not in ran and ran[0] == "eager" and "onnxruntime" in ran


def test_bf16_on_a_cpu_without_bf16_instructions_is_a_row_that_says_so():
    assert cpu.unavailable(cpu.BY_KEY["eager-bf16"], AVX512_BF16) is None
    why = cpu.unavailable(cpu.BY_KEY["compile-freezing-bf16"], NO_BF16)
    assert why is not None and "bf16" in why
    # OpenVINO's own choice runs anywhere: it picks fp32 where there is no bf16
    assert cpu.unavailable(cpu.BY_KEY["openvino"], NO_BF16) is None


def test_runtimes_and_precisions_pick_the_variants_and_eager_always_runs():
    keys = [v.key for v in cpu.CpuConfig(runtimes=("openvino",), precisions=("fp32",))
            .variants()]
    assert keys == ["eager", "openvino-f32"]
    assert [v.key for v in cpu.CpuConfig().variants()] == [v.key for v in cpu.VARIANTS]


def test_each_variant_runs_in_its_own_process_and_its_row_holds_what_the_page_reads():
    cfg = cpu.CpuConfig(models=("tests.cpu.tiny:text",), batch_sizes=(2,),
                        runtimes=("onnxruntime", "openvino"), precisions=("fp32",), rounds=2,
                        sample_ms=1.0, profile_calls=1)
    doc = results.validate(cpu.document(cfg, commit="test"), kind=cpu.KIND)
    assert doc["complete"] and doc["provenance"]["cpu_capability"]["capability"]
    rows = {r["variant"]: r for r in doc["rows"]}
    assert list(rows) == ["eager", "onnxruntime", "openvino-f32"]
    for r in rows.values():
        assert r["status"] in ("ok", "noisy"), r["message"]
        assert r["precision"] == "fp32" and r["rel_err"] <= cpu.TOLERANCE["fp32"]
        assert r["first_s"] >= r["ready_s"] >= 0 and len(r["latency_ms"]["samples"]) == 2
        assert r["profile"]["top"], r["profile"]  # each runtime's own profiler named its ops
        assert r["wall_s"] > r["first_s"] and r["others_cpu_s"] >= 0
    assert rows["eager"]["rel_err"] == 0.0


def run_child(model: str, variant: str, workdir) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "snippets.cpu.child", "--model", model,
                           "--variant", variant, "--rounds", "1", "--profile-calls", "0",
                           "--workdir", str(workdir)], env=process.child_env(),
                          cwd=process.ROOT, capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def test_a_model_that_does_not_export_is_a_row_with_the_reason(tmp_path):
    code, out, err = run_child("tests.cpu.tiny:unexportable", "onnxruntime", tmp_path)
    record = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and record["status"] == "error"
    # torch.export's own reason, not only the exporter's "step 1/3 failed"
    assert record["message"].startswith("GuardOnDataDependentSymNode"), record["message"]


@pytest.mark.parametrize("argv, named", [
    (["--runtimes", "torch,tvm"], "'tvm'"),
    (["--precisions", "fp16"], "'fp16'"),
    (["--models", "resnet5"], "'resnet5'"),
    (["--batch-sizes", "0"], "--batch-sizes"),
])
def test_a_bad_flag_is_one_line_and_exit_code_2(capsys, argv, named):
    code, out, err = run(cli_main.main, capsys, *argv)
    assert_one_line_error(code, out, err, named, prog=cli_main.PROG)


def test_the_child_refuses_an_unknown_variant_in_one_line(capsys, tmp_path):
    code, out, err = run(child.main, capsys, "--model", "resnet50", "--variant", "tvm",
                         "--workdir", str(tmp_path))
    assert_one_line_error(code, out, err, "'tvm'", prog=child.PROG)


def test_all_models_is_every_model_of_the_flag():
    from snippets.core import flags

    args = cli_main.parser().parse_args(["--models", "all", "--runtimes", "all"])
    cfg = flags.build(cli_main.PROG, cpu.CpuConfig, args)
    assert cfg.models == cpu.MODELS and cfg.runtimes == cpu.RUNTIMES
