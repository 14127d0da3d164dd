"""What each graph break costs: every broken example and its fixes, eager against compiled."""

from __future__ import annotations

import contextlib
import functools
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch._inductor.config

from snippets.core import backends, config, measure
from snippets.core import profile as profiler
from snippets.core.rows import fault
from snippets.explain import breaks, explain_quietly, kinds

KIND = kinds.GRAPH_BREAKS.name
# Rows through the block per call. The block is fixed (breaks.WIDTH wide, a hidden layer of
# 4 x WIDTH); only the rows it is given change.
#   small: a call is a few kernels of microseconds, so a compiled call's fixed cost (guards, the
#     wrapper, launches: about 0.1 to 0.2 ms a call on the recorded H200's host) outweighs all
#     that fusion saves. It shows when compile does not pay.
#   large: 8 sequences of 2,048 tokens. The hidden activation is then 16384 x 1024 fp32,
#     67 MB, and one pass over it (a read or a write) through an H200's HBM (4.8 TB/s) takes
#     some 15 to 20 us; the two matmuls take about 0.05 ms at TF32 (17 GFLOP). The branching
#     examples make several passes over it eagerly, which a fused graph makes fewer of: there
#     compile can pay. The print and container examples have only the GELU between the
#     layers, which eager already runs as one kernel: compiled they do the same device work,
#     and the compiled call's host cost decides (``--profile`` records both sides).
#     No larger: the hidden activation is 2**24 values, the most torch.quantile takes in fp32
#     before torch 2.14 (pytorch/pytorch#64947), and Dynamo computes the NumPy examples'
#     np.percentile with it.
SIZES: dict[str, int] = {"small": 64, "large": 16384}
# default: what a first try at compile looks like. reduce-overhead: the same blocks replayed as
# CUDA graphs, which take the per-call launches off the host: the question for tiny work is
# whether that, not fusion, is what pays. It needs a CUDA device.
MODES = ("default", "reduce-overhead")
DEFAULTS = backends.BLOCK_TIMING


@dataclass(frozen=True, kw_only=True)
class CostConfig:
    """What a call costs eager and compiled, at one size of work.

    Attributes:
        size: rows through each block a call: small is microseconds of work, large a 67 MB hidden
            activation
        mode: torch.compile's mode for the compiled side: {choices} (CUDA only)
        profile: profile each variant after timing it, eager and compiled: kernels, device time and
            launches a call
    """
    device: str = "auto"
    size: str = config.option("small", choices=tuple(SIZES))
    mode: str = config.option("default", choices=MODES)
    rounds: int | None = config.option(None, positive=True)
    sample_ms: float | None = None
    backends: backends.BackendSettings | None = None
    profile: bool = False
    profile_calls: int = 20  # calls profiled: a block is a handful of kernels, each recurs 20 times

    def __post_init__(self) -> None:
        config.check(self)
        if self.mode == "reduce-overhead" and config.device_type(
                config.resolve_device(self.device)) == "cpu":
            raise config.ConfigError("mode", "reduce-overhead needs a CUDA device")

    @property
    def batch(self) -> int:
        return SIZES[self.size]

    def resolve(self) -> CostConfig:
        return config.resolve(self, DEFAULTS)

    def settings(self) -> dict[str, Any]:
        return {"size": self.size, "batch": self.batch, "width": breaks.WIDTH, "dtype": "fp32",
                "mode": self.mode,
                "rounds": self.rounds, "sample_ms": self.sample_ms, "grad": False,
                "backends": self.backends.as_dict(), "tf32": self.backends.tf32,
                "fx_graph_cache": bool(torch._inductor.config.fx_graph_cache)}


def _compile(model: torch.nn.Module, mode: str) -> torch.nn.Module:
    return torch.compile(model, mode=mode)


def measure_cause(cause: breaks.Cause, cfg: CostConfig) -> list[dict[str, Any]]:
    device = torch.device(cfg.device)
    # fp32 on every device: the NumPy examples hand the tensor to NumPy, which has no bf16.
    x = breaks.example_input(cfg.batch, device)
    fns, rows = {}, {}
    for kind, variant in cause.variants():
        torch.manual_seed(0)
        model = variant.module().to(device).eval()
        exp = explain_quietly(model, *variant.args(x))
        ref = model(*variant.args(x))
        fns[f"{variant.name}/eager"] = lambda m=model, v=variant: m(*v.args(x))
        row = rows[variant.name] = {
            "cause": cause.title, "variant": variant.name, "kind": kind,
            "graph_count": exp.graph_count, "graph_break_count": exp.graph_break_count,
            "compile_s": None, "rel_err": None, "status": "ok", "message": ""}
        try:
            compiled = _compile(model, cfg.mode)
            run = lambda c=compiled, v=variant: c(*v.args(x))  # noqa: E731 (as eager's above)
            out, row["compile_s"] = measure.time_first_call(run, device)
            row["rel_err"] = measure.relative_error(out, ref)
            del out  # a CUDA-graph output is overwritten by the next replay
            # Under reduce-overhead the first call is the graph's warm-up and the second
            # records it: a variant that cannot be captured (one that copies to the host)
            # fails here, as its own row, and the other variants are still timed.
            run(), run()
        except Exception as exc:
            row["status"], row["message"] = fault(exc)
            continue
        fns[f"{variant.name}/compiled"] = run
    timed = measure.measure_variants(fns, device, rounds=cfg.rounds, sample_ms=cfg.sample_ms)
    for name, row in rows.items():
        eager = timed[f"{name}/eager"]
        row["eager_ms"], row["compiled_ms"], row["speedup"] = eager.as_dict(), None, None
        row["calls_per_sample"] = {"eager": timed.calls[f"{name}/eager"]}
        if row["status"] != "ok":  # nothing compiled to time: eager alone, and the fault
            continue
        comp = timed[f"{name}/compiled"]
        row["compiled_ms"] = comp.as_dict()
        row["calls_per_sample"]["compiled"] = timed.calls[f"{name}/compiled"]
        row["speedup"] = measure.speedup(eager, comp).value
        if cfg.profile:
            # After the timing, so the profiler's own cost touches no timed sample.
            row["profile"] = {side: profiler.profile_or_error(
                fns[f"{name}/{side}"], device, cfg.profile_calls, lambda exc: fault(exc)[1])
                for side in ("eager", "compiled")}
    return list(rows.values())



def produce(cfg: CostConfig = CostConfig(), *, commit: str | None = None) -> dict[str, Any]:
    """The results document of one run over every cause; the examples' prints are swallowed."""
    cfg = cfg.resolve()
    with contextlib.redirect_stdout(io.StringIO()):
        return kinds.timed(KIND, cfg, lambda cause: measure_cause(cause, cfg), breaks.CAUSES,
                           commit)


def produce_on(device: str, size: str = "small") -> Callable[..., dict[str, Any]]:
    """The page's run on one device type, as ``pages.show`` takes it."""
    return functools.partial(produce, CostConfig(device=device, size=size))
