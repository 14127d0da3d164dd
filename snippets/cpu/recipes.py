"""Each way of running a model on a CPU, as the page shows it: PyTorch's recipes (compile, freezing,
channels_last, bf16 autocast) and the two runtimes a model can be exported to (ONNX Runtime and
OpenVINO), each a few lines of its public API."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch._inductor.config
from torch import nn

from snippets.core import examples
from snippets.core import profile as profiler

# OpenVINO's names of the precisions it runs at, as this guide names them.
OV_PRECISIONS = {"f32": "fp32", "bf16": "bf16", "f16": "fp16"}


# --8<-- [start:recipe]
def cpu_recipe(model, x, bf16):
    """The recipe that won on the CPU: freezing, channels_last for images,
    and bf16 autocast where the CPU has bf16 instructions."""
    import torch._inductor.config  # binds torch, with Inductor's settings
    # Weights become constants: Inductor folds them and oneDNN prepacks.
    torch._inductor.config.freezing = True
    # An nn.TransformerEncoder's fused fast path is opaque to Inductor.
    torch.backends.mha.set_fastpath_enabled(False)
    if x.dim() == 4:  # an image batch: convolutions prefer NHWC
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    compiled = torch.compile(model)

    def call():
        with torch.no_grad(), torch.autocast("cpu", torch.bfloat16,
                                             enabled=bf16):
            return compiled(x)
    return call
# --8<-- [end:recipe]


def torch_variant(model: nn.Module, x: examples.Example, *, compiled: bool, freezing: bool,
                  bf16: bool) -> tuple[Callable[[], Any], dict[str, Any]]:
    """A PyTorch variant: eager or compiled, frozen or not, in fp32 or under bf16 autocast. A
    frozen one is ``cpu_recipe``, for an example of any form (a dict of token ids, say): with
    channels_last for an image model and without the encoder's fast path, as the speed
    ladder's freezing rung (snippets.speed.ladder.rungs_for)."""
    image = freezing and examples.has_image(x)
    # Dynamo reads the global switch while it traces (snippets.speed.ladder.frozen says why),
    # and the process is this variant's alone.
    torch._inductor.config.freezing = freezing
    # Compiled with it, an encoder stays one fused op per layer, which runs in fp32 under
    # autocast too: the compiled bf16 variant's answer was eager fp32's to the bit.
    torch.backends.mha.set_fastpath_enabled(not freezing)
    if image:
        model = model.to(memory_format=torch.channels_last)
        x = examples.place(x, "cpu", channels_last=True)
    fn = torch.compile(model) if compiled else model

    def call() -> Any:
        with torch.no_grad(), torch.autocast("cpu", torch.bfloat16, enabled=bf16):
            return examples.call(fn, x)
    return call, {"channels_last": image, "threads": torch.get_num_threads(),
                  "fastpath": torch.backends.mha.get_fastpath_enabled()}


# --8<-- [start:onnxruntime]
def onnxruntime_session(model, args, kwargs, path):
    """Export with torch.export (dynamo=True) to an ONNX file, then open
    it with every graph optimization on ONNX Runtime's CPU provider."""
    import onnxruntime as ort
    import torch

    program = torch.onnx.export(model, args, kwargs=kwargs, dynamo=True,
                                verbose=False)
    program.save(path)
    options = ort.SessionOptions()
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    return ort.InferenceSession(path, options,
                                providers=["CPUExecutionProvider"])
# --8<-- [end:onnxruntime]


# --8<-- [start:openvino]
def openvino_model(model, args, kwargs, precision=None):
    """Convert the exported program to OpenVINO and compile it for the
    CPU, at fp32 ("f32") or, with precision None, at the precision
    OpenVINO picks for this CPU (bf16 where it has bf16 instructions)."""
    import openvino as ov
    import torch

    program = torch.export.export(model, args, kwargs)
    converted = ov.convert_model(program)
    config = {"INFERENCE_PRECISION_HINT": precision} if precision else {}
    return converted, ov.Core().compile_model(converted, "CPU", config)
# --8<-- [end:openvino]


def _inputs(x: examples.Example, names: list[str]) -> list[torch.Tensor]:
    """The example's tensors in the exported graph's input order (its arguments, then its
    keyword arguments), checked against the graph's count."""
    tensors = examples.tensors(x)
    if len(tensors) != len(names):
        raise ValueError(f"{len(names)} graph inputs, {len(tensors)} tensors")
    return tensors


def onnxruntime_variant(model: nn.Module, x: examples.Example,
                        workdir: Path) -> tuple[Callable[[], Any], dict[str, Any]]:
    args, kwargs = examples.split(x)
    session = onnxruntime_session(model, args, kwargs, str(workdir / "model.onnx"))
    names = [i.name for i in session.get_inputs()]
    feeds = dict(zip(names, (t.numpy() for t in _inputs(x, names)), strict=True))

    def call() -> list[torch.Tensor]:
        return [torch.from_numpy(o) for o in session.run(None, feeds)]
    # 0: ONNX Runtime's default, a thread per physical core
    threads = session.get_session_options().intra_op_num_threads
    return call, {"threads": threads, "onnx": str(workdir / "model.onnx")}


def openvino_variant(model: nn.Module, x: examples.Example,
                     hint: str | None) -> tuple[Callable[[], Any], dict[str, Any]]:
    args, kwargs = examples.split(x)
    converted, compiled = openvino_model(model, args, kwargs, hint)
    inputs = [t.numpy() for t in _inputs(x, [p.get_any_name() for p in compiled.inputs])]
    outputs = range(len(compiled.outputs))

    def call() -> list[torch.Tensor]:
        answer = compiled(inputs)  # copies its outputs: the next call may not overwrite them
        return [torch.from_numpy(answer[i]) for i in outputs]
    chose = compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name()
    return call, {"threads": compiled.get_property("INFERENCE_NUM_THREADS"),
                  "chose": OV_PRECISIONS.get(chose, chose), "converted": converted,
                  "inputs": inputs}


# ---- where each runtime's time goes ------------------------------------------------------------

def onnxruntime_profile(onnx: str, x: examples.Example, calls: int) -> dict[str, Any]:
    """ONNX Runtime's own profile of ``calls`` calls in a second session of the same file: the
    time of each operator type per call (``Conv``, ``FusedConv``, ``MatMul``...)."""
    import time

    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_profiling = True
    options.profile_file_prefix = str(Path(onnx).with_suffix(""))
    session = ort.InferenceSession(onnx, options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    feeds = dict(zip(names, (t.numpy() for t in _inputs(x, names)), strict=True))
    session.run(None, feeds)  # its first call: left out below, as the timers leave it out
    started = time.perf_counter_ns()
    for _ in range(calls):
        session.run(None, feeds)
    span_us = (time.perf_counter_ns() - started) / 1e3
    events = json.loads(Path(session.end_profiling()).read_text())
    seen: set[str] = set()  # each node runs once a call: its first event is the first call's
    by_name: dict[str, list[float]] = {}
    for e in events:
        if e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time"):
            if e["name"] not in seen:
                seen.add(e["name"])
                continue
            by_name.setdefault(e["args"]["op_name"], []).append(float(e["dur"]))
    return {**profiler.tally(by_name, calls, span_us), "device_type": "cpu"}


def openvino_profile(converted: Any, hint: str | None, inputs: list[Any],
                     calls: int) -> dict[str, Any]:
    """OpenVINO's per-node counters over ``calls`` calls of a second compile of the same model
    with ``PERF_COUNT`` on: the time of each operation and the kernel it ran
    (``Convolution (brgconv_avx512)``: oneDNN's, named by its instruction set)."""
    import time

    import openvino as ov

    config = {"PERF_COUNT": True, **({"INFERENCE_PRECISION_HINT": hint} if hint else {})}
    request = ov.Core().compile_model(converted, "CPU", config).create_infer_request()
    request.infer(inputs)  # its first call, left out as the timers leave it out
    by_name: dict[str, list[float]] = {}
    span_us = 0.0
    for _ in range(calls):
        started = time.perf_counter_ns()
        request.infer(inputs)
        span_us += (time.perf_counter_ns() - started) / 1e3
        for info in request.get_profiling_info():  # the last call's counters
            if info.status == ov.ProfilingInfo.Status.EXECUTED:
                name = f"{info.node_type} ({info.exec_type})"
                by_name.setdefault(name, []).append(info.real_time.total_seconds() * 1e6)
    return {**profiler.tally(by_name, calls, span_us), "device_type": "cpu"}
