"""The dynamic-shapes run: each strategy's schedule in an empty Inductor cache, then the
steady-state timings at one shape, as one results document (``produce``); ``counts_doc`` is the
Dynamo-only count of compiles per strategy, cheap enough to record on any CPU."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch._inductor.config

from snippets.core import backends, config, measure, results
from snippets.dynamic import (BUCKETS, KIND, SCHEDULE, SIZES, STRATEGIES, Size, TinyEncoder,
                              kinds, recompile_limit, recompile_limit_name, run_schedule,
                              summarize)

@dataclass(frozen=True, kw_only=True)
class DynamicConfig:
    """Recompiles and their stalls as input shapes change.

    Attributes:
        strategies: comma-separated from {choices} (default: all)
        backend: eager: count recompiles in seconds, without compiling kernels
        size: the encoder's width and the shape its kernels are timed at: small (compile does not
            pay), large (it does)
    """

    device: str = "auto"
    strategies: tuple[str, ...] = config.option(tuple(STRATEGIES), choices=tuple(STRATEGIES),
                                                what="strategy")
    backend: str = config.option("inductor", choices=("inductor", "eager"))
    size: str = config.option("small", choices=tuple(SIZES))
    rounds: int | None = None  # steady-state timing rounds
    sample_ms: float | None = None
    backends: backends.BackendSettings | None = None

    def __post_init__(self) -> None:
        config.check(self)

    def resolve(self) -> DynamicConfig:
        return config.resolve(self, backends.BLOCK_TIMING)

    @property
    def dims(self) -> Size:
        return SIZES[self.size]

    def settings(self) -> dict[str, Any]:
        return {"size": self.size, "width": self.dims.width, "heads": self.dims.heads,
                "steady_shape": list(self.dims.steady),
                "schedule": [list(s) for s in SCHEDULE], "buckets": BUCKETS, "dtype": "fp32",
                "backend": self.backend, "fx_graph_cache": False,
                "inductor_cache": backends.cold_cache_setting("strategy"),
                "limit_name": recompile_limit_name(), "limit": recompile_limit(),
                "rounds": self.rounds, "sample_ms": self.sample_ms, "grad": False,
                "backends": self.backends.as_dict(), "tf32": self.backends.tf32}


def steady_state(cfg: DynamicConfig) -> list[dict[str, Any]]:
    """One shape, after warm-up: eager, a dynamic kernel, and a kernel specialized to it."""
    dev = torch.device(cfg.device)
    size = cfg.dims
    torch.manual_seed(0)
    model = TinyEncoder(size.width, size.heads).to(dev).eval()
    x = torch.randn(*size.steady, size.width, device=dev)
    dynamic = torch.compile(model, backend=cfg.backend, dynamic=True)
    static = torch.compile(model, backend=cfg.backend, dynamic=False)
    fns = {"eager": lambda: model(x), "dynamic=True": lambda: dynamic(x),
           "dynamic=False": lambda: static(x)}
    # Three calls each first: the first compiles, the others warm caches.
    timed = measure.measure_variants(fns, dev, rounds=cfg.rounds, sample_ms=cfg.sample_ms,
                                     warmup=3)
    return [{"variant": n, "batch": size.steady[0], "seq": size.steady[1],
             "latency_ms": m.as_dict(), "calls_per_sample": timed.calls[n],
             "speedup": measure.speedup(timed["eager"], m).value}
            for n, m in timed.measurements.items()]


def _warm_up(cfg: DynamicConfig) -> None:
    """Compile something unrelated once, so the process's one-time costs land on no stall."""
    fn = torch.compile(lambda t: torch.nn.functional.gelu(t) * 2, backend=cfg.backend)
    fn(torch.randn(3, 5, device=cfg.device))
    torch._dynamo.reset()


def produce(cfg: DynamicConfig = DynamicConfig(), *, commit: str | None = None,
            on_row: Callable[[dict[str, Any]], None] = lambda _: None) -> dict[str, Any]:
    """A row per strategy, then the steady-state timings; ``on_row`` sees each strategy's."""
    cfg = cfg.resolve()
    limit = recompile_limit()
    doc = results.new_document(
        KIND, results.provenance(torch.device(cfg.device), cfg.settings(), commit=commit),
        steady=[])
    # Without the graph cache, a strategy does not reuse the kernels an earlier one compiled for
    # the same shape, so each stall is that strategy's own compile.
    with (torch._inductor.config.patch(fx_graph_cache=False), cfg.backends.apply(),
          torch.no_grad()):
        try:
            _warm_up(cfg)
            for s in cfg.strategies:
                # An empty cache per strategy: Inductor would otherwise load the kernels an
                # earlier strategy compiled (by their source), graph cache or not.
                with backends.cold_cache():
                    calls = run_schedule(s, backend=cfg.backend, device=cfg.device, size=cfg.dims)
                doc["rows"].append(summarize(s, calls, limit))
                on_row(doc)
            doc["steady"] = steady_state(cfg)
        finally:
            torch._dynamo.reset()
    doc["complete"] = True
    return doc


def counts_doc(*, commit: str | None = None) -> dict[str, Any]:
    """Compiles per strategy with Dynamo alone (no kernels): seconds on any CPU."""
    limit = recompile_limit()
    doc = results.new_document(
        kinds.COUNTS.name, results.provenance(torch.device("cpu"), {}, commit=commit),
        limit_name=recompile_limit_name(), limit=limit)
    with torch.no_grad():
        doc["rows"] = [summarize(s, run_schedule(s, backend="eager"), limit) for s in STRATEGIES]
    for row in doc["rows"]:
        del row["calls"]  # per-call times of the eager backend say nothing about stalls
    doc["complete"] = True
    return doc


def produce_on(device: str, size: str = "small") -> Callable[..., dict[str, Any]]:
    """The page's run on one device type, as ``pages.show`` takes it."""
    return functools.partial(produce, DynamicConfig(device=device, size=size))
