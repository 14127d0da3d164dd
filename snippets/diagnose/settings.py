"""The diagnosis's settings: the modes it tries per device type, its per-device defaults, and
``DiagnoseConfig``, the one frozen config a diagnosis is made from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from snippets import dynamic
from snippets.core import backends, config

# The modes tried per device type: CUDA graphs only where there is CUDA; max-autotune benchmarks
# kernel choices for minutes, beyond any default budget.
DEVICE_MODES = {"cuda": ("default", "reduce-overhead", "max-autotune-no-cudagraphs"),
                "cpu": ("default",)}
# The fp32 matmul precision per device: on CUDA the benchmark's ("high", TF32), so a verdict on
# an fp32 model agrees with the guide's figures (at "highest" the transformer's said to stay
# eager on the recorded H200; docs/results/nvidia-h200_torch-2.11.0/tf32/). CPU: torch's default.
DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"rounds": 30, "sample_ms": 20.0,
             "matmul_precision": backends.DEFAULT["cuda"].matmul_precision},
    "cpu": {"rounds": 20, "sample_ms": 50.0,
            "matmul_precision": backends.DEFAULT["cpu"].matmul_precision},
}
PRECISIONS = ("highest", "high", "medium")  # torch.set_float32_matmul_precision's values


def ran_at(doc: dict[str, Any]) -> str:
    """The fp32 matmul precision a recorded diagnosis ran at, for the page to say which."""
    return doc["provenance"]["settings"]["matmul_precision"]


def parse_shapes(text: str) -> tuple[int, ...]:
    """``batch=1,8,32``: the batch sizes each call of the schedule gets, in order."""
    name, sep, sizes = text.partition("=")
    if not sep or name.strip() != "batch":
        raise config.ConfigError("shapes", f"{text!r}: expected batch=N,N,...")
    try:
        got = tuple(int(s) for s in sizes.split(","))
    except ValueError:
        raise config.ConfigError("shapes", f"{text!r}: not whole numbers") from None
    if not got or min(got) <= 0:
        raise config.ConfigError("shapes", f"{text!r}: sizes must be positive")
    return got


@dataclass(frozen=True, kw_only=True)
class DiagnoseConfig:
    """Graph breaks, recompiles and modes of your model, and what to do.

    Attributes:
        shapes: the batch sizes of successive calls, as batch=N,N,...
        budget_s: seconds the whole diagnosis may take; phases skip what does not fit
        matmul_precision: fp32 matmul precision the command runs the model at ("high": TF32 on
            CUDA); a factory that sets its own wins
    """

    device: str = "auto"
    # Repeats, growth and shrinking of the leading dimension: enough calls to see whether the
    # second size recompiles and whether the compiler then generalizes.
    shapes: str = "batch=4,4,8,2,16,8"
    budget_s: float = config.option(180.0, positive=True, unit=" s")
    rounds: int | None = None
    sample_ms: float | None = None
    matmul_precision: str | None = config.option(None, choices=PRECISIONS)

    def __post_init__(self) -> None:
        config.check(self)
        parse_shapes(self.shapes)

    def backends(self) -> backends.BackendSettings:
        """Torch's own process-wide settings but for the matmul precision."""
        return backends.BackendSettings(matmul_precision=self.resolve().matmul_precision)

    @property
    def schedule(self) -> tuple[int, ...]:
        return parse_shapes(self.shapes)

    def resolve(self) -> DiagnoseConfig:
        return config.resolve(self, DEFAULTS)

    def settings(self) -> dict[str, Any]:
        return {"schedule": list(self.schedule), "budget_s": self.budget_s,
                "rounds": self.rounds, "sample_ms": self.sample_ms, "dtype": "fp32",
                "matmul_precision": torch.get_float32_matmul_precision(),
                # what a stamp shows: fp32 products ran as TF32 (only read on CUDA)
                "tf32": (config.device_type(self.device) == "cuda"
                         and torch.get_float32_matmul_precision() != "highest"),
                # cuDNN's TF32 for fp32 convolutions (torch's default: on)
                "cudnn_tf32": torch.backends.cudnn.allow_tf32,
                "inductor_cache": "empty per compile", "count_backend": "eager", "grad": False,
                "recompile_limit": dynamic.recompile_limit()}
