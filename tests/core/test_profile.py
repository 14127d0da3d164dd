"""The profile summary: its arithmetic on made-up intervals, and its counts on a tiny CPU model.
No timing is asserted."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from snippets.core import profile


def k(name: str, start: float, end: float, kind: str = "kernel") -> dict:
    return {"name": name, "start": start, "end": end, "kind": kind}


def test_summary_of_made_up_intervals():
    # Two calls over 0..100 µs: kernels a (twice) and b, b overlapping a on another stream.
    spans = [k("launch", 0, 2, "launch"), k("a", 10, 30), k("b", 20, 40),
             k("launch", 50, 52, "launch"), k("a", 60, 80), k("host", 0, 100, "other")]
    s = profile.summarize(spans, calls=2)
    assert s["kernels_per_call"] == 1.5 and s["launches_per_call"] == 1.0
    assert s["span_us_per_call"] == 50.0
    assert s["busy_us_per_call"] == pytest.approx(25.0)  # 10..40 and 60..80
    assert s["idle_fraction"] == pytest.approx(0.5)
    assert [t["name"] for t in s["top"]] == ["a", "b"]
    assert s["top"][0]["us_per_call"] == 20.0 and s["top"][0]["count_per_call"] == 1.0
    assert s["top"][0]["share"] == pytest.approx(0.4)


def test_summary_of_nothing_is_empty_not_an_error():
    s = profile.summarize([], calls=3)
    assert s["kernels_per_call"] == 0 and s["idle_fraction"] is None and s["top"] == []


def test_top_is_cut_and_names_are_shortened():
    spans = [k("x" * 500, 0, 1)] + [k(f"k{i}", i, i + 0.5) for i in range(20)]
    s = profile.summarize(spans, calls=1, top=3)
    assert len(s["top"]) == 3 and all(len(t["name"]) <= profile.NAME_CHARS for t in s["top"])


def test_profile_of_a_tiny_cpu_model_counts_its_operators():
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2)).eval()
    x = torch.randn(1, 8)
    with torch.no_grad():
        model(x)
        s = profile.profile(lambda: model(x), torch.device("cpu"), calls=4)
    assert s["device_type"] == "cpu" and s["calls"] == 4
    # linear, relu, linear: the top-level operators of one eager call
    assert s["kernels_per_call"] == 3 and s["launches_per_call"] == 0
    assert {t["name"] for t in s["top"]} == {"aten::linear", "aten::relu"}
    assert s["top"][0]["count_per_call"] in (1, 2)
    assert 0 <= s["idle_fraction"] <= 1


@pytest.mark.parametrize(("name", "kind"), [
    ("sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32", "matmul"),
    ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "matmul"),
    ("cudnn_generated_fort_native_sdpa_sm90_flash_bprop", "matmul"),
    ("triton_tem_fused_convolution_63", "matmul"),  # an autotuned template
    ("triton_poi_fused_convolution_backward_0", "triton"),  # fused around a convolution
    ("triton_red_fused_native_batch_norm_1", "triton"),
    ("void cudnn::engines_precompiled::nchwToNhwcKernel<__nv_bfloat16", "layout"),
    ("cudnn::bn_bw_1C11_kernel_new", "other"),  # a normalization, though cuDNN's
    ("void at::native::batch_norm_backward_kernel<c10::BFloat16", "other"),
    ("Memcpy DtoD (Device -> Device)", "other"),
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "comm"),
])
def test_a_kernel_is_classed_by_its_name(name, kind):
    assert profile.kernel_class(name) == kind


def test_kernel_time_per_class_counts_kernels_only():
    spans = [k("sm90_xmma_gemm", 0, 30), k("triton_poi_fused_relu_0", 30, 40),
             k("sm90_xmma_gemm", 50, 80), k("cudaLaunchKernel", 0, 1, "launch")]
    assert profile.classes(spans, calls=2) == {"comm": 0.0, "layout": 0.0, "matmul": 30.0,
                                               "triton": 5.0, "other": 0.0}


def test_a_range_the_code_marks_is_not_a_kernel():
    model = nn.Linear(8, 2)
    x = torch.randn(1, 8)

    def marked():
        with torch.profiler.record_function("Optimizer.step#Mine.step"):
            return model(x)

    with torch.no_grad():
        marked()
        s = profile.profile(marked, torch.device("cpu"), calls=2)
    assert "Optimizer.step#Mine.step" not in {t["name"] for t in s["top"]}
    assert s["annotations"] == []  # none counted among the kernels
    assert "by_class" not in s  # a CPU's operators are not classed


def test_host_time_is_per_call_of_the_calls_it_ran():
    seen = []
    us = profile.host_us(lambda: seen.append(1), torch.device("cpu"), calls=7)
    assert len(seen) == 7 and us > 0
