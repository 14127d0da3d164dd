"""On a CPU: torch.compile's recipes against the runtimes a model can be exported to."""

from __future__ import annotations

import functools
import importlib.util
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from snippets.core import config, machine, models, process, results, runs
from snippets.cpu import kinds

KIND = kinds.CPU.name
RUNTIMES = ("torch", "onnxruntime", "openvino")
# fp32; bf16 (autocast for PyTorch); auto: what the runtime picks for this CPU (OpenVINO's default)
PRECISIONS = ("fp32", "bf16", "auto")
# What each runtime needs installed beside torch: the extra that brings it.
NEEDS = {"onnxruntime": ("onnxruntime", "onnxscript", "onnx"), "openvino": ("openvino",)}
INSTALL = 'pip install -e ".[alternatives]"'
# Relative error allowed against eager fp32: fp32 has no TF32 on a CPU, so a reordered sum is all
# that differs; bf16 keeps 8 bits of mantissa (the benchmark's bf16 tolerance).
TOLERANCE = {"fp32": 1e-3, "bf16": 5e-2, "fp16": 1e-2}


@dataclass(frozen=True)
class Variant:
    """One way of running the model: its runtime, what it asks for, and its name in a table."""

    key: str
    runtime: str
    precision: str  # as asked, one of PRECISIONS
    label: str
    compiled: bool = False
    freezing: bool = False


VARIANTS = (
    Variant("eager", "torch", "fp32", "eager"),
    Variant("compile", "torch", "fp32", "compile", compiled=True),
    # channels_last joins freezing for an image model (recipes.torch_variant)
    Variant("compile-freezing", "torch", "fp32", "compile + freezing", compiled=True,
            freezing=True),
    Variant("onnxruntime", "onnxruntime", "fp32", "ONNX Runtime"),
    Variant("openvino-f32", "openvino", "fp32", "OpenVINO f32"),
    Variant("eager-bf16", "torch", "bf16", "eager, bf16 autocast"),
    Variant("compile-freezing-bf16", "torch", "bf16", "compile + freezing, bf16 autocast",
            compiled=True, freezing=True),
    Variant("openvino", "openvino", "auto", "OpenVINO default"),
)
BY_KEY = {v.key: v for v in VARIANTS}
BASELINE = "eager"  # every row's error is against it, and every ratio

# The models: the package's two and two real ones from the zoo (transformers' BERT-base on 128
# token ids, timm's ViT-B/16), each built by its factory (snippets.cpu.child.build).
MODELS = ("resnet50", "transformer", "bert_base", "vit_b16")


@dataclass(frozen=True, kw_only=True)
class CpuConfig:
    """On the CPU: eager, torch.compile's recipes, ONNX Runtime and OpenVINO, each variant in a
    fresh process.

    One run on the CPU. Each (model, batch, variant) is a process of its own: on two cores one
    takes from several seconds (eager) to well over a minute (ViT-B/16 compiled at batch 8),
    a cold compile most of it.

    Attributes:
        models: comma-separated from {choices}, or all (bert_base and vit_b16: the zoo extra)
        runtimes: from {choices}, or all; eager fp32 always runs, as every row is read against it
        precisions: from {choices} (auto: what the runtime picks for this CPU, OpenVINO's default),
            or all
        rounds: timing rounds of each variant, one sample each
        sample_ms: the least time one timed sample lasts, in calls back to back
        profile_calls: calls profiled after the timed ones, in each variant's own profiler (0: none)
        timeout_s: the most one variant's process may take
    """

    # The flag takes these; code may pass a pkg.module:factory too (the tests' tiny models).
    models: tuple[str, ...] = config.option(MODELS, choices=MODELS, what="model", every=True,
                                            flag_only=True)
    batch_sizes: tuple[int, ...] = config.option((1, 8), positive=True)
    runtimes: tuple[str, ...] = config.option(RUNTIMES, choices=RUNTIMES, what="runtime",
                                              every=True)
    precisions: tuple[str, ...] = config.option(PRECISIONS, choices=PRECISIONS,
                                                what="precision", every=True)
    # Three rounds: a process's fixed costs (torch's import, the model, the compile or export)
    # are most of its time on two cores, and a ViT-B/16 call at batch 8 takes seconds there.
    # The default run (64 processes) took half an hour at five rounds on a shared 2-core CPU;
    # three save a few minutes of it.
    rounds: int = config.option(3, positive=True)
    sample_ms: float = config.option(100.0, positive=True)
    profile_calls: int = config.option(2, positive=True, zero=True)
    timeout_s: float = config.option(900.0, positive=True)

    def __post_init__(self) -> None:
        config.check(self)

    def variants(self) -> tuple[Variant, ...]:
        """The variants this run measures, eager fp32 first."""
        return tuple(v for v in VARIANTS if v.key == BASELINE or (
            v.runtime in self.runtimes and v.precision in self.precisions))

    def settings(self) -> dict[str, Any]:
        return {"models": list(self.models), "batch_sizes": list(self.batch_sizes),
                "variants": [v.key for v in self.variants()], "rounds": self.rounds,
                "sample_ms": self.sample_ms, "profile_calls": self.profile_calls,
                "timeout_s": self.timeout_s, "dtype": "fp32", "grad": False,
                "cold_cache": True,  # each process an empty Inductor cache
                "threads": torch.get_num_threads(), "versions": versions()}


def versions() -> dict[str, str | None]:
    """The installed runtimes and exporters, by distribution name."""
    return {d: results.package_version(d)
            for d in ("onnxruntime", "onnxscript", "onnx", "openvino")}


def unavailable(v: Variant, capability: dict[str, Any]) -> str | None:
    """Why ``v`` cannot run here (a runtime not installed, bf16 the CPU would emulate), or
    None."""
    for module in NEEDS.get(v.runtime, ()):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed: {INSTALL}"
    if v.precision == "bf16" and not machine.bf16_in_hardware(capability):
        # the row says "unsupported: ..."; docs/cpu.md says why an emulation is not timed
        return "no bf16 instructions (avx512_bf16, AMX)"
    return None


def _child(cfg: CpuConfig, model: str, batch: int, v: Variant, workdir: Path) -> dict[str, Any]:
    """Run one variant in a fresh process with an empty Inductor cache; its record."""
    workdir.mkdir()
    argv = [sys.executable, "-m", "snippets.cpu.child", "--model", model,
            "--batch-size", str(batch), "--variant", v.key, "--rounds", str(cfg.rounds),
            "--sample-ms", str(cfg.sample_ms), "--profile-calls", str(cfg.profile_calls),
            "--workdir", str(workdir), "--reference", str(workdir.parent / "eager.pt")]
    env = process.child_env(TORCHINDUCTOR_CACHE_DIR=str(workdir / "inductor"))
    env.pop("TRITON_CACHE_DIR", None)  # a user's own would be shared by every variant
    try:
        return process.run_child(argv, env=env, timeout_s=cfg.timeout_s)
    except process.Refused as exc:  # the run's mistake, not this variant's: one line, exit 2
        raise models.SpecError(str(exc)) from None


def new_row(model: str, batch: int, v: Variant, **fields: Any) -> dict[str, Any]:
    row = {"model": model, "batch_size": batch, "variant": v.key, "runtime": v.runtime,
           "precision": None, "status": "ok", "message": "", "ready_s": None, "first_s": None,
           "latency_ms": None, "calls_per_sample": None, "rel_err": None, "threads": None,
           "channels_last": False, "fastpath": None, "profile": None,
           # the process's wall time, and the CPU time other processes took meanwhile
           "wall_s": None, "others_cpu_s": None}
    row.update(fields)
    return row


def run(cfg: CpuConfig, progress: Callable[[str], None] = lambda _: None
        ) -> Iterator[dict[str, Any]]:
    """Yield a row per (model, batch, variant), each variant's process after the last."""
    capability = machine.cpu_capability()
    for model in cfg.models:
        for batch in cfg.batch_sizes:
            with tempfile.TemporaryDirectory(prefix="snippets-cpu-") as tmp:
                for v in cfg.variants():
                    progress(f"{model}, batch {batch}: {v.label}")
                    why = unavailable(v, capability)
                    if why:
                        yield new_row(model, batch, v, status="unsupported", message=why)
                        continue
                    others, started = machine.Neighbours(), time.perf_counter()
                    rec = _child(cfg, model, batch, v, Path(tmp) / v.key)
                    yield new_row(model, batch, v, **rec, wall_s=time.perf_counter() - started,
                                  others_cpu_s=others.seconds())


def document(cfg: CpuConfig, progress: Callable[[str], None] = lambda _: None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None, *,
             commit: str | None = None) -> dict[str, Any]:
    """The results document of a CPU run; ``on_row`` sees it after every row."""
    prov = results.provenance(torch.device("cpu"), cfg.settings(), commit=commit)
    return runs.fill(results.new_document(KIND, prov), run(cfg, progress), on_row)


def produce(**fields: Any) -> Callable[..., dict[str, Any]]:
    return functools.partial(document, CpuConfig(**fields))
