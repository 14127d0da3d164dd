"""Why compiling the tutorial's transformer buys little in inference: the encoder's fast path.
In eval mode without grad, ``nn.TransformerEncoderLayer`` runs one fused native op per layer
(``torch._transformer_encoder_layer_fwd``), which Inductor can only call; with the fast path off,
Dynamo traces the layer's parts, which Inductor can fuse. The graph either way, and the four
combinations timed."""

from __future__ import annotations

import contextlib
import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch._inductor.config

from snippets.core import backends, config, measure, models
from snippets.explain import explain_quietly, kinds

KIND = kinds.FASTPATH.name
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
VARIANTS = ("eager, fast path", "eager, no fast path", "compiled, fast path",
            "compiled, no fast path")
# As the benchmark runs the transformer on each device type.
DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"batch_sizes": (1, 32), "dtype": "bf16", "rounds": 30, "sample_ms": 25.0,
             "backends": backends.DEFAULT["cuda"]},
    "cpu": {"batch_sizes": (1,), "dtype": "fp32", "rounds": 5, "sample_ms": 100.0,
            "backends": backends.DEFAULT["cpu"]},
}


def fastpath(enabled: bool) -> contextlib.AbstractContextManager[None]:
    """Set the encoder's fast path for a block; ``torch.backends.mha`` has had it since 2.3."""
    mha = torch.backends.mha
    return backends.swapped(mha.get_fastpath_enabled, mha.set_fastpath_enabled, enabled)


# --8<-- [start:fix]
def compile_without_fastpath(model):
    import torch

    # Off before the first call, which is when Dynamo traces: the traced
    # layers are then plain linear, attention and layer-norm ops that Inductor
    # can fuse, not one opaque fused op each.
    torch.backends.mha.set_fastpath_enabled(False)
    return torch.compile(model)
# --8<-- [end:fix]


def graph_doc(*, commit: str | None = None) -> dict[str, Any]:
    """What Dynamo records for the encoder, with and without the fast path (no compiler runs)."""
    rows = []
    for enabled in (True, False):
        torch.manual_seed(0)
        model, x = models.transformer(1)
        with fastpath(enabled):
            exp = explain_quietly(model.eval(), x)
        ops = Counter(op for graph in exp.ops_per_graph for op in graph)
        rows.append({"fastpath": enabled, "graph_count": exp.graph_count,
                     "graph_break_count": exp.graph_break_count, "ops": dict(ops.most_common())})
    return kinds.traced(kinds.TRANSFORMER_GRAPH, rows, commit)


@dataclass(frozen=True, kw_only=True)
class FastpathConfig:
    device: str = "auto"
    batch_sizes: tuple[int, ...] | None = None
    dtype: str | None = None
    rounds: int | None = None
    sample_ms: float | None = None
    backends: backends.BackendSettings | None = None

    def resolve(self) -> FastpathConfig:
        return config.resolve(self, DEFAULTS)

    def settings(self) -> dict[str, Any]:
        return {"model": "transformer", "batch_sizes": list(self.batch_sizes),
                "dtype": self.dtype, "mode": "default", "rounds": self.rounds,
                "sample_ms": self.sample_ms, "grad": False, "train": False,
                "backends": self.backends.as_dict(), "tf32": self.backends.tf32,
                # compile_s of a warm cache is seconds where a cold one is a minute: say which
                "fx_graph_cache": bool(torch._inductor.config.fx_graph_cache)}


def _call(model: torch.nn.Module, x: torch.Tensor, enabled: bool) -> torch.Tensor:
    with fastpath(enabled):  # set around every call, so each variant runs as it was traced
        return model(x)


def measure_batch(cfg: FastpathConfig, bs: int) -> list[dict[str, Any]]:
    device, dtype = torch.device(cfg.device), DTYPES[cfg.dtype]
    torch.manual_seed(0)
    model, x = models.transformer(bs)
    model, x = model.to(device, dtype).eval(), x.to(device, dtype)
    ref = model(x).float()
    fns, extra = {}, {}
    for name in VARIANTS:
        enabled = name.endswith(", fast path")
        if name.startswith("eager"):
            fns[name] = lambda e=enabled: _call(model, x, e)
            extra[name] = {"compile_s": None, "rel_err": measure.relative_error(fns[name](), ref)}
            continue
        compiled = torch.compile(model, dynamic=False)  # one batch size each: specialized kernels
        out, compile_s = measure.time_first_call(lambda c=compiled, e=enabled: _call(c, x, e),
                                                 device)
        extra[name] = {"compile_s": compile_s, "rel_err": measure.relative_error(out.float(), ref)}
        fns[name] = lambda c=compiled, e=enabled: _call(c, x, e)
    timed = measure.measure_variants(fns, device, rounds=cfg.rounds, sample_ms=cfg.sample_ms)
    base = timed[VARIANTS[0]]
    return [{"batch_size": bs, "variant": name, **extra[name], "latency_ms": m.as_dict(),
             "calls_per_sample": timed.calls[name], "speedup": measure.speedup(base, m).value}
            for name, m in timed.measurements.items()]


def produce(cfg: FastpathConfig = FastpathConfig(), *, commit: str | None = None
            ) -> dict[str, Any]:
    cfg = cfg.resolve()
    return kinds.timed(KIND, cfg, functools.partial(measure_batch, cfg), cfg.batch_sizes, commit)


def produce_on(device: str) -> Callable[..., dict[str, Any]]:
    """The page's run on one device type, as ``pages.show`` takes it."""
    return functools.partial(produce, FastpathConfig(device=device))


def has_encoder(model: torch.nn.Module) -> bool:
    """Whether ``model`` has encoder layers, whose fast path the ladder climbs without."""
    return any(isinstance(m, torch.nn.TransformerEncoderLayer) for m in model.modules())
