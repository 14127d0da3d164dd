"""The loop run's one frozen config (``LoopConfig``): its fields' docstrings are the help of
``python -m snippets.generate.loop``, and ``DEFAULTS`` fills what a run leaves out, per device
type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snippets.core import backends, config, machine
from snippets.generate import DTYPES, check_cache, fields, ladder, runs
from snippets.generate import model as M

# dense: the run's dtype. int8: the package's Int8Linear, the output head kept dense; int8-head:
# the head int8 too, as gpt-fast's and torchao's quantizers do. torchao: Int8WeightOnlyConfig
# on every linear; torchao-unwrapped: the same, unwrap_tensor_subclass before the compile.
# int4: the package's Int4Linear (tinygemm, groups of 128), the head kept dense.
WEIGHTS = ("dense", "int8", "int8-head", "torchao", "torchao-unwrapped", "int4")
WAYS = ("step", "loop", "naive")
WHOLE_STEP = tuple(r.name for r in ladder.ladder("cuda") if r.whole_step and not r.int8)

DEFAULTS: dict[str, dict[str, Any]] = {
    # bf16, the int8 layer and torchao's int8 side by side; the head and unwrapped variants on
    # request (each compile of a 1 B step with coordinate-descent tuning takes a minute or more)
    "cuda": {"size": "1b", "dtype": "bf16", "prompt": 128, "cache": 512, "tokens": 128,
             "weights": ("dense", "int8", "torchao"), "rounds": 10, "sample_ms": 50.0},
    # the tiny decoder in fp32, where every loop's tokens must be eager's exactly
    "cpu": {"size": "tiny", "dtype": "fp32", "prompt": 16, "cache": 64, "tokens": 16,
            "weights": ("dense", "int8", "torchao"), "rounds": 5, "sample_ms": 20.0},
}


@dataclass(frozen=True, kw_only=True)
class LoopConfig:
    """N tokens end to end, the gpt-fast loop beside a naive one and the step alone, for
    bf16 and int8 weights in the same rounds.

    Attributes:
        size: decoder size: {choices}
        batch: sequences generated together
        tokens: tokens each loop generates: the prompt's, then tokens - 1 decode steps
        weights: comma-separated from {choices}, or all: dense in the run's dtype; int8 the
            package's int8 layer, the head kept; int8-head the head int8 too; torchao its
            Int8WeightOnlyConfig, as is or unwrapped before the compile; int4 the package's int4
            layer (tinygemm), the head kept
        ways: comma-separated from {choices}, or all (default: all)
        rung: the ladder's rung every weights is compiled as
        compile_prefill: compile the prompt's forward too (fullgraph, one static shape); off: eager
        profile: profile each weights' step: kernels per step, idle share, top kernels
        prompt: prompt length; the step is timed at the position after it
        cache: cache length in positions, at least the prompt plus --tokens
    """

    device: str = "auto"
    size: str | None = config.option(None, choices=tuple(M.SIZES), what="size")
    batch: int = config.option(1, positive=True)
    tokens: int | None = config.option(None, positive=True)
    weights: tuple[str, ...] | None = config.option(None, choices=WEIGHTS, what="weights",
                                                    every=True)
    ways: tuple[str, ...] = config.option(WAYS, choices=WAYS, what="way", every=True)
    rung: str = config.option("coordinate-descent", choices=WHOLE_STEP)
    compile_prefill: bool = False
    profile: bool = False
    prompt: int | None = config.option(None, positive=True)
    cache: int | None = config.option(None, positive=True)
    dtype: str | None = config.option(None, choices=tuple(DTYPES))
    rounds: int | None = config.option(None, positive=True)
    sample_ms: float | None = None
    profile_calls: int = 20  # steps profiled: enough for every kernel to recur
    host_calls: int = 20  # steps the host time is of: few enough not to fill the launch queue

    def __post_init__(self) -> None:
        config.check(self)
        if self.tokens is not None and self.tokens < 2:
            raise config.ConfigError("tokens", "must be at least 2")
        check_cache(self.cache, self.prompt, self.tokens, "tokens", "tokens")

    def resolve(self) -> LoopConfig:
        # checked again with the device's defaults in: a --tokens past their cache
        return config.resolve(self, DEFAULTS)

    def settings(self) -> dict[str, Any]:
        return {**fields(self), "position": self.prompt,
                "prefill": "compiled" if self.compile_prefill else "eager",
                "recompile_limit": runs.RECOMPILE_LIMIT, "fx_graph_cache": False,
                "inductor_cache": machine.inductor_cache(),
                "backends": backends.DEFAULT[config.device_type(self.device)].as_dict()}
