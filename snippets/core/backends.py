"""Backend settings as data: the process-wide torch switches a run depends on, set for the run
only."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import torch


@contextlib.contextmanager
def swapped(get: Callable[[], Any], put: Callable[[Any], None], value: Any) -> Iterator[None]:
    """One of torch's process-wide switches (the default dtype, the encoder's fast path) set to
    ``value`` for the block and put back after it, whatever the block raised."""
    was = get()
    put(value)
    try:
        yield
    finally:
        put(was)


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


# What the guide measures with. CUDA: TF32 (fp32 modes ran 2 to 4.6x faster with it:
# docs/results/nvidia-h200_torch-2.11.0/tf32/) and no cudnn.benchmark (ResNet-50's replay ran
# slower with it, one process per setting: .../cudnn-benchmark/; within one process the first
# setting decides the plan, cached per shape in aten/src/ATen/native/cudnn/Conv_v8.cpp).
# CPU: torch's defaults (neither switch acts there).
DEFAULT = {
    "cuda": BackendSettings(matmul_precision="high", cudnn_benchmark=False),
    "cpu": BackendSettings(),
}
# Defaults of a tool timing small blocks in rounds; a CPU round costs seconds: fewer there.
BLOCK_TIMING: dict[str, dict[str, Any]] = {
    "cuda": {"rounds": 30, "sample_ms": 20.0, "backends": DEFAULT["cuda"]},
    "cpu": {"rounds": 5, "sample_ms": 50.0, "backends": DEFAULT["cpu"]},
}


def cold_cache_setting(per: str) -> str:
    """How a run's settings record that each ``per`` (strategy, rung) compiled from empty."""
    return f"empty per {per} (core.backends.cold_cache)"


@contextlib.contextmanager
def cold_cache(*, reset: bool = True) -> Iterator[None]:
    """An empty compile cache for the block, so a compile is the cold one a new process pays:
    Dynamo reset, and a fresh Inductor cache (the FX graph cache alone is not enough: kernels are
    also cached by source). ``fresh_cache`` from torch 2.7, ``fresh_inductor_cache`` before."""
    import torch._inductor.utils as inductor_utils

    fresh = getattr(inductor_utils, "fresh_cache", None) or inductor_utils.fresh_inductor_cache
    # On entry only: what the block compiled stays usable; ``reset=False`` keeps what came before.
    if reset:
        torch._dynamo.reset()
    with fresh():
        yield
