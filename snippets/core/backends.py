"""Backend settings as data: the process-wide torch switches a run depends on, set for the run
only."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

import torch


@dataclass(frozen=True, kw_only=True)
class BackendSettings:
    # "high" lets fp32 matmuls run as TF32 on the tensor cores, as production inference does;
    # "highest" (torch's default) keeps them in full fp32.
    matmul_precision: str = "highest"
    cudnn_tf32: bool = True  # torch's default: cuDNN convolutions may use TF32
    # cuDNN times its algorithms on the first call of each shape and keeps the fastest: worth it
    # for fixed shapes, and off by default because each new shape pays that search again.
    cudnn_benchmark: bool = False

    @property
    def tf32(self) -> bool:
        """Whether fp32 matmuls may run as TF32 (the name older results files record)."""
        return self.matmul_precision != "highest"

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tf32": self.tf32}

    @contextlib.contextmanager
    def apply(self) -> Iterator[BackendSettings]:
        """Set these for the block; restore the process's own settings after it, even on error."""
        was = (torch.get_float32_matmul_precision(), torch.backends.cudnn.allow_tf32,
               torch.backends.cudnn.benchmark)
        torch.set_float32_matmul_precision(self.matmul_precision)
        torch.backends.cudnn.allow_tf32 = self.cudnn_tf32
        torch.backends.cudnn.benchmark = self.cudnn_benchmark
        try:
            yield self
        finally:
            torch.set_float32_matmul_precision(was[0])
            torch.backends.cudnn.allow_tf32, torch.backends.cudnn.benchmark = was[1], was[2]


# What the guide measures with, per device type: on CUDA, TF32 (it does not touch the bf16 the
# GPU runs use; in fp32, one process per setting, every mode of both models ran 2 to 4.6 times
# faster with it on: docs/results/nvidia-h200_torch-2.11.0/tf32/) and cuDNN's heuristics rather
# than its autotuner; on the CPU, torch's defaults
# (neither switch does anything there). cudnn.benchmark is off because, measured where it acts
# (one process per setting, alternating: docs/results/nvidia-h200_torch-2.11.0/cudnn-benchmark/),
# ResNet-50's reduce-overhead replay ran slower with it in every process at both batch sizes, and
# eager and the default mode, bound by the host, showed no gain beyond their spread. Timed both
# ways in one process (the speed page's settings grid) it cannot show this: ATen's cuDNN
# convolution caches its plan per shape (aten/src/ATen/native/cudnn/Conv_v8.cpp, run_single_conv
# and its CacheKeyWrapper, whose key holds no benchmark flag), so the first setting to run a shape
# decides the plan for both.
DEFAULT = {
    "cuda": BackendSettings(matmul_precision="high", cudnn_benchmark=False),
    "cpu": BackendSettings(),
}
# The per-device defaults of a tool that times small blocks in interleaved rounds (the graph-break
# costs, the dynamic-shape kernels). Each CPU round costs seconds on 2 cores: fewer rounds there.
BLOCK_TIMING: dict[str, dict[str, Any]] = {
    "cuda": {"rounds": 30, "sample_ms": 20.0, "backends": DEFAULT["cuda"]},
    "cpu": {"rounds": 5, "sample_ms": 50.0, "backends": DEFAULT["cpu"]},
}


@contextlib.contextmanager
def cold_cache(*, reset: bool = True) -> Iterator[None]:
    """An empty compile cache for the block: Dynamo forgets its compiled frames, and Inductor gets a
    fresh cache directory with its in-memory caches cleared. Turning off only the FX graph cache is
    not enough: Inductor also keeps the kernels it compiled by their source (its ``codecache``,
    ``PyCodeCache`` and the on-disk kernel files), so a later compile of the same kernels would load
    them instead of building them. Inside this block a compile is the cold one a new process pays.
    ``torch._inductor.utils.fresh_cache`` from torch 2.7, ``fresh_inductor_cache`` before."""
    import torch._inductor.utils as inductor_utils

    fresh = getattr(inductor_utils, "fresh_cache", None) or inductor_utils.fresh_inductor_cache
    # Reset on entry only: what the block compiled stays usable after it (a caller times it later).
    # ``reset=False`` keeps what Dynamo compiled before the block (a ladder times its rungs together).
    if reset:
        torch._dynamo.reset()
    with fresh():
        yield
