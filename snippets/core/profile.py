"""Where a call's time goes, from torch.profiler: the top kernels, the kernels and launches per
call, and the share of the wall time the device sat idle between kernels."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import Any

import torch

from snippets.core import measure

# The CUDA runtime and driver calls that put work on the device, as the profiler names them.
LAUNCHES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
            "cudaGraphLaunch", "cudaMemcpyAsync", "cudaMemsetAsync")
TOP = 8  # kernels listed per profile: beyond eight, each holds a percent or two of the time
NAME_CHARS = 70  # a Triton or cuDNN kernel name runs to hundreds of characters

# What a GPU kernel does, by its name (the first match wins): FLOPs are in the matmuls and
# convolutions (cuBLAS, cuDNN, CUTLASS, flash, autotuned ``triton_tem_*``); the rest move memory
# (fused Triton kernels, whose names may say "convolution", NCHW layout conversions, ATen's
# elementwise and norms); NCCL's are a distributed step's collectives, on a stream of their own.
CLASSES = (
    ("comm", re.compile(r"nccl")),
    ("layout", re.compile(r"nchwtonhwc|nhwctonchw")),
    ("matmul", re.compile(r"^triton_(tem|mm)")),
    ("triton", re.compile(r"^triton_")),
    ("other", re.compile(r"bn_|batch_?norm|layer_?norm")),  # cuDNN's and ATen's normalizations
    ("matmul", re.compile(r"gemm|xmma|cutlass|nvjet|sm[89]0_|cublas|sdpa|flash|fprop|dgrad"
                          r"|wgrad|conv|cudnn")),
)
OTHER = "other"


def _top_level_op(event: Any) -> bool:
    """An operator (``ns::name``) called by no other operator."""
    if "::" not in event.name:
        return False
    parent = event.cpu_parent
    while parent is not None:
        if "::" in parent.name:
            return False
        parent = parent.cpu_parent
    return True


def collect(fn: Callable[[], object], device: torch.device, calls: int) -> list[dict[str, Any]]:
    """An interval (µs) per profiler event of ``calls`` calls of a warm ``fn``: ``kernel``
    (device work, or a top-level CPU operator), ``launch`` or ``other``."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    # Kineto logs to stderr at every start and stop; above its highest level (5) it is quiet.
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    cuda = device.type == "cuda"
    activities = [ProfilerActivity.CPU, *([ProfilerActivity.CUDA] if cuda else [])]
    measure.synchronize(device)
    with profile(activities=activities) as prof:
        for _ in range(calls):
            fn()
        measure.synchronize(device)
    out = []
    for e in prof.events():
        # A record_function range (``Optimizer.step#AdamW.step``) is mirrored on the GPU's
        # timeline as an annotation spanning the kernels it launched: not a kernel itself.
        if getattr(e, "is_user_annotation", False):
            kind = "other"
        elif cuda:
            kind = ("kernel" if e.device_type == DeviceType.CUDA
                    else "launch" if e.name in LAUNCHES else "other")
        else:
            kind = "kernel" if _top_level_op(e) else "other"
        out.append({"name": e.name, "start": float(e.time_range.start),
                    "end": float(e.time_range.end), "kind": kind})
    return out


def _union_us(spans: list[tuple[float, float]]) -> float:
    """Total time covered by possibly overlapping spans (kernels on several streams)."""
    total, end = 0.0, float("-inf")
    for s, e in sorted(spans):
        if e > end:
            total += e - max(s, end)
            end = e
    return total


def kernel_class(name: str) -> str:
    """``CLASSES``' name for what a GPU kernel does, or ``OTHER``."""
    low = name.lower()
    return next((c for c, pattern in CLASSES if pattern.search(low)), OTHER)


def classes(intervals: list[dict[str, Any]], calls: int) -> dict[str, float]:
    """Kernel µs per call in each of ``CLASSES`` (overlapping kernels both count)."""
    out = dict.fromkeys([*(c for c, _ in CLASSES), OTHER], 0.0)
    for i in intervals:
        if i["kind"] == "kernel" and calls > 0:
            out[kernel_class(i["name"])] += (i["end"] - i["start"]) / calls
    return out


def summarize(intervals: list[dict[str, Any]], calls: int, top: int = TOP) -> dict[str, Any]:
    """Per call: wall span, time kernels cover, their count, launches, idle share, the ``top``
    kernels; ``annotations`` is empty (kept for migrated older profiles)."""
    if not intervals or calls <= 0:
        return {"calls": calls, "kernels_per_call": 0.0, "launches_per_call": 0.0,
                "span_us_per_call": 0.0, "busy_us_per_call": 0.0, "idle_fraction": None,
                "top": [], "annotations": []}
    span = max(i["end"] for i in intervals) - min(i["start"] for i in intervals)
    kernels = [i for i in intervals if i["kind"] == "kernel"]
    busy = _union_us([(k["start"], k["end"]) for k in kernels])
    by_name: dict[str, list[float]] = {}
    for k in kernels:
        by_name.setdefault(k["name"], []).append(k["end"] - k["start"])
    return {**tally(by_name, calls, span, busy, top),
            "launches_per_call": sum(i["kind"] == "launch" for i in intervals) / calls}


def tally(by_name: dict[str, list[float]], calls: int, span_us: float,
          busy_us: float | None = None, top: int = TOP) -> dict[str, Any]:
    """``summarize``'s shape from kernel durations (µs) by name, for a runtime whose profiler
    reports durations (ONNX Runtime, OpenVINO); ``busy_us`` by default their sum, at most the
    wall time (OpenVINO times parallel nodes each in full)."""
    busy = min(sum(map(sum, by_name.values())), span_us) if busy_us is None else busy_us
    ranked = sorted(by_name.items(), key=lambda kv: -sum(kv[1]))[:top]
    return {
        "calls": calls,
        "kernels_per_call": sum(map(len, by_name.values())) / calls,
        "launches_per_call": 0.0,
        "span_us_per_call": span_us / calls,
        "busy_us_per_call": busy / calls,
        "idle_fraction": 1 - busy / span_us if span_us > 0 else None,
        "top": [{"name": name[:NAME_CHARS], "us_per_call": sum(d) / calls,
                 "count_per_call": len(d) / calls, "share": sum(d) / span_us if span_us else None}
                for name, d in ranked],
        "annotations": [],
    }


def profile(fn: Callable[[], object], device: torch.device, calls: int) -> dict[str, Any]:
    """``summarize(collect(...))``, with ``classes`` on a GPU."""
    intervals = collect(fn, device, calls)
    by_class = {"by_class": classes(intervals, calls)} if device.type == "cuda" else {}
    return {**summarize(intervals, calls), **by_class, "device_type": device.type}


def host_us(fn: Callable[[], object], device: torch.device, calls: int) -> float:
    """Host µs per call of a warm ``fn``, the device not waited on: Python, guards, wrappers,
    launch. For calls that queue little (a graph replay); a long queue makes the host wait."""
    measure.synchronize(device)
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    host = time.perf_counter() - start
    measure.synchronize(device)
    return host * 1e6 / calls


def profile_or_error(fn: Callable[[], object], device: torch.device, calls: int,
                     fault: Callable[[BaseException], str]) -> dict[str, Any]:
    """``profile``, or ``{"error": fault(exc)}``: a failing profiler leaves its row as it was."""
    try:
        return profile(fn, device, calls)
    except Exception as exc:
        return {"error": fault(exc)}


def profile_of(row: dict[str, Any] | None) -> dict[str, Any] | None:
    """A row's profile, where the profiler ran and did not fail."""
    p = (row or {}).get("profile")
    return p if p and "error" not in p else None
