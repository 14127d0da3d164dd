"""What each graph break costs: every broken example and its fixes, eager against compiled.

The examples of ``snippets.explain.breaks`` run at one batch, eager and under ``torch.compile``
(default mode), timed in interleaved rounds per cause so a broken variant and its fixes share
machine state. ``python -m snippets.explain --latency`` runs it.
"""

from __future__ import annotations

import contextlib
import functools
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch._inductor.config

from snippets.core import backends, config, measure, results
from snippets.explain import breaks, explain_quietly

KIND = "graph-breaks"
DEFAULTS: dict[str, dict[str, Any]] = {
    # Each CPU round costs seconds on 2 cores: fewer rounds there.
    "cuda": {"rounds": 30, "sample_ms": 20.0, "backends": backends.DEFAULT["cuda"]},
    "cpu": {"rounds": 5, "sample_ms": 50.0, "backends": backends.DEFAULT["cpu"]},
}


@dataclass(frozen=True, kw_only=True)
class CostConfig:
    device: str = "auto"
    batch: int = 64  # rows through the block: enough work per call that fusion is visible
    rounds: int | None = None
    sample_ms: float | None = None
    backends: backends.BackendSettings | None = None

    def resolve(self) -> CostConfig:
        return config.resolve(self, DEFAULTS)

    def settings(self) -> dict[str, Any]:
        return {"batch": self.batch, "width": breaks.WIDTH, "dtype": "fp32", "mode": "default",
                "rounds": self.rounds, "sample_ms": self.sample_ms, "grad": False,
                "backends": self.backends.as_dict(), "tf32": self.backends.tf32,
                "fx_graph_cache": bool(torch._inductor.config.fx_graph_cache)}


def _compile(model: torch.nn.Module) -> torch.nn.Module:
    return torch.compile(model)  # default mode: what a first try at compile looks like


def measure_cause(cause: breaks.Cause, cfg: CostConfig) -> list[dict[str, Any]]:
    device = torch.device(cfg.device)
    # fp32 on every device: the NumPy examples hand the tensor to NumPy, which has no bf16.
    x = breaks.example_input(cfg.batch, device)
    fns, rows = {}, {}
    for kind, variant in [("broken", cause.broken)] + [("fixed", f) for f in cause.fixes]:
        torch.manual_seed(0)
        model = variant.module().to(device).eval()
        exp = explain_quietly(model, *variant.args(x))
        compiled = _compile(model)
        ref = model(*variant.args(x))
        out, compile_s = measure.time_first_call(lambda c=compiled, v=variant: c(*v.args(x)),
                                                 device)
        fns[f"{variant.name}/eager"] = lambda m=model, v=variant: m(*v.args(x))
        fns[f"{variant.name}/compiled"] = lambda m=compiled, v=variant: m(*v.args(x))
        rows[variant.name] = {"cause": cause.title, "variant": variant.name, "kind": kind,
                              "graph_count": exp.graph_count,
                              "graph_break_count": exp.graph_break_count,
                              "compile_s": compile_s,
                              "rel_err": measure.relative_error(out, ref)}
    timed = measure.measure_variants(fns, device, rounds=cfg.rounds, sample_ms=cfg.sample_ms)
    for name, row in rows.items():
        eager, comp = timed[f"{name}/eager"], timed[f"{name}/compiled"]
        row["eager_ms"], row["compiled_ms"] = eager.as_dict(), comp.as_dict()
        row["calls_per_sample"] = {"eager": timed.calls[f"{name}/eager"],
                                   "compiled": timed.calls[f"{name}/compiled"]}
        row["speedup"] = measure.speedup(eager, comp).value
    return list(rows.values())


def produce(cfg: CostConfig = CostConfig(), *, commit: str | None = None) -> dict[str, Any]:
    """The results document of one run over every cause; the examples' prints are swallowed."""
    cfg = cfg.resolve()
    device = torch.device(cfg.device)
    doc = results.new_document(KIND, results.provenance(device, cfg.settings(), commit=commit))
    with cfg.backends.apply(), torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
        for cause in breaks.CAUSES:
            doc["rows"] += measure_cause(cause, cfg)
            torch._dynamo.reset()
    doc["complete"] = True
    return doc


def produce_on(device: str) -> Callable[..., dict[str, Any]]:
    """The page's run on one device type, as ``pages.show`` takes it."""
    return functools.partial(produce, CostConfig(device=device))
