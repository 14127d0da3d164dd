"""The benchmark's settings: the variants it times, the dtypes and their tolerances, the
per-device defaults, and ``BenchConfig``, the one frozen config a run is made from."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

import torch
import torch._inductor.config

from snippets.core import backends, config, models

MODES = ("eager", "default", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# The modes that compile in seconds; max-autotune benchmarks kernel choices and takes minutes.
FAST_MODES = MODES[:3]
# CUDA graphs without Inductor, beside the modes: the eager model captured by hand
# (core.cudagraph), and Dynamo's graph replayed by the cudagraphs backend, whose kernels are
# eager's. What reduce-overhead gains beyond them is Inductor's.
GRAPH_VARIANTS = ("eager-graphed", "cudagraphs-backend")
VARIANTS = MODES + GRAPH_VARIANTS
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
# Relative error allowed between compiled and eager output. bf16 keeps 8 bits of mantissa, and
# fused kernels round in a different order than eager, so a few percent is rounding, not a bug.
TOLERANCE = {"bf16": 5e-2, "fp16": 1e-2, "fp32": 1e-2}  # fp32 may run as TF32 on CUDA

# The one table of per-device defaults; the command line's help is written from it.
DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"batch_sizes": (1, 32), "modes": FAST_MODES, "dtype": "bf16", "rounds": 100,
             "warm_rounds": 10, "sample_ms": 25.0, "backends": backends.DEFAULT["cuda"]},
    # A laptop-sized run: each CPU round costs a second or more per model.
    "cpu": {"batch_sizes": (1,), "modes": ("eager", "default"), "dtype": "fp32", "rounds": 10,
            "warm_rounds": 1, "sample_ms": 100.0, "backends": backends.DEFAULT["cpu"]},
}


@dataclass(frozen=True, kw_only=True)
class BenchConfig:
    """Time eager against torch.compile, honestly.

    Everything one run needs; None means "the default for the device" (``DEFAULTS``).

    Attributes:
        modes: comma-separated from {choices}, or all; eager is always run: speedups are against it
        dtype: the weights' and inputs' dtype; on CUDA fp32 matmuls run as TF32
        channels_last: NHWC layout for 4-D inputs
        host_gate: re-measure rounds timed while the host CPU ran slow (default: keep them, and
            record the host's speed beside each round)
        crosscheck: time every variant again with torch.utils.benchmark.Timer and a plain wall
            clock, beside the harness's own timing
        cold_compile: compile each mode with an empty Inductor cache, so compile_s is what a new
            machine pays
        cudnn_benchmark: let cuDNN time its algorithms for each convolution shape
        tf32: let fp32 matmuls and convolutions run as TF32 on the tensor cores (float32 matmul
            precision high, cuDNN TF32), or keep them in full fp32
    """

    models: tuple[str, ...] = models.names(("resnet50", "transformer"))
    batch_sizes: tuple[int, ...] | None = config.option(None, positive=True)
    modes: tuple[str, ...] | None = config.option(None, choices=VARIANTS, what="mode",
                                                  every=True)
    dtype: str | None = config.option(None, choices=tuple(DTYPES))
    channels_last: bool = False
    device: str = "auto"
    rounds: int | None = config.option(None, positive=True)
    warm_rounds: int | None = config.option(None, positive=True, zero=True)
    sample_ms: float | None = None  # how long one sample lasts
    warmup: int = 3  # calls of each variant after compile, before any timing
    # measure.HostGate. Off by default: on the GPU host the slow spells outlasted the budget.
    host_gate: bool = False
    backends: backends.BackendSettings | None = None  # TF32, cuDNN autotuner: set for the run
    crosscheck: bool = False  # bench.crosscheck: timers that share nothing with the harness
    cold_compile: bool = False
    # The two switches go on top of the device's other backend settings (``resolve``), where
    # they then live: None is the device's own. A cached choice (cuDNN's plan per convolution
    # shape) is made once per process: measure a switch like this in separate processes, one
    # per setting, not both ways in one.
    cudnn_benchmark: bool | None = None
    tf32: bool | None = None
    factories: tuple[tuple[str, models.Factory], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        config.check(self)

    def resolve(self) -> BenchConfig:
        """Fill every None with the device's default, so the run and its record are explicit."""
        cfg = config.resolve(self, DEFAULTS)
        if "eager" not in cfg.modes:  # every speedup is against the eager row of the same run
            cfg = replace(cfg, modes=("eager", *cfg.modes))
        chosen: dict[str, Any] = {}
        if cfg.cudnn_benchmark is not None:
            chosen["cudnn_benchmark"] = cfg.cudnn_benchmark
        if cfg.tf32 is not None:
            chosen |= {"matmul_precision": "high" if cfg.tf32 else "highest",
                       "cudnn_tf32": cfg.tf32}
        if chosen:
            cfg = replace(cfg, backends=replace(cfg.backends, **chosen), cudnn_benchmark=None,
                          tf32=None)
        return cfg

    def settings(self) -> dict[str, Any]:
        """What the results file records of this run's settings."""
        b = self.backends or backends.BackendSettings()
        return {
            "models": [*self.models, *(n for n, _ in self.factories)],
            "batch_sizes": list(self.batch_sizes or ()), "modes": list(self.modes or ()),
            "dtype": self.dtype, "tf32": b.tf32, "cudnn_benchmark": b.cudnn_benchmark,
            "backends": b.as_dict(), "channels_last": self.channels_last,
            "rounds": self.rounds, "warm_rounds": self.warm_rounds, "host_gate": self.host_gate,
            "sample_ms": self.sample_ms, "warmup": self.warmup, "grad": False, "train": False,
            "crosscheck": self.crosscheck,
            # compile_s of a warm cache is seconds where a cold one is a minute: say which applied
            "fx_graph_cache": bool(torch._inductor.config.fx_graph_cache),
            "cold_compile": self.cold_compile,
            "inductor_cache_dir": os.environ.get("TORCHINDUCTOR_CACHE_DIR"),
        }


def cache_state(settings: dict[str, Any]) -> str:
    """How a run's compile times should be read: ``empty`` (Inductor's cache was empty or off:
    every compile is cold), ``not empty`` (it held compiled graphs, perhaps these: some compiles
    may be warm), or ``not recorded`` (``inductor_cache`` None: the run did not count it)."""
    cache = settings.get("inductor_cache")
    if settings.get("fx_graph_cache") is False or settings.get("cold_compile"):
        return "empty"
    if not cache:
        return "not recorded"
    return "empty" if cache["fx_graphs_before"] == 0 else "not empty"
