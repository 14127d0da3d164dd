"""What each graph break costs: every broken example and its fixes, eager against compiled.

The examples of ``snippets.breaks`` run at one batch, eager and under ``torch.compile`` (default
mode), timed in interleaved rounds per cause so a broken variant and its fixes share machine state.
"""

from __future__ import annotations

import contextlib
import functools
import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch._inductor.config

from snippets import breaks, measure, results
from snippets.explain import SCHEMA, explain_quietly

KIND = "graph-breaks"


@dataclass(frozen=True, kw_only=True)
class CostConfig:
    device: str = "cpu"
    batch: int = 64  # rows through the block: enough work per call that fusion is visible
    rounds: int | None = None  # 30 on CUDA, 5 on CPU: each CPU round costs seconds on 2 cores
    sample_ms: float | None = None  # 20 ms on CUDA, 50 ms on CPU

    def resolve(self) -> CostConfig:
        cuda = self.device.startswith("cuda")
        return CostConfig(device=self.device, batch=self.batch,
                          rounds=self.rounds or (30 if cuda else 5),
                          sample_ms=self.sample_ms or (20.0 if cuda else 50.0))


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
        t0 = time.perf_counter()
        out = compiled(*variant.args(x))  # the first call compiles
        measure.synchronize(device)
        compile_s = time.perf_counter() - t0
        fns[f"{variant.name}/eager"] = lambda m=model, v=variant: m(*v.args(x))
        fns[f"{variant.name}/compiled"] = lambda m=compiled, v=variant: m(*v.args(x))
        rows[variant.name] = {"cause": cause.title, "variant": variant.name, "kind": kind,
                              "graph_count": exp.graph_count,
                              "graph_break_count": exp.graph_break_count,
                              "compile_s": compile_s,
                              "rel_err": measure.relative_error(out, ref)}
    for fn in fns.values():  # warm both paths before any timing
        fn()
    calls = {n: measure.calls_per_sample(measure.time_calls(f, 3, device), cfg.sample_ms)
             for n, f in fns.items()}
    timed = measure.interleaved(fns, cfg.rounds, calls, device)
    for name, row in rows.items():
        eager, comp = timed[f"{name}/eager"], timed[f"{name}/compiled"]
        row["eager_ms"] = {"median": eager.median, "iqr": eager.iqr, "samples": list(eager.samples)}
        row["compiled_ms"] = {"median": comp.median, "iqr": comp.iqr, "samples": list(comp.samples)}
        row["speedup"] = measure.speedup(eager, comp).value
    return list(rows.values())


def produce(cfg: CostConfig = CostConfig()) -> dict[str, Any]:
    """The results document of one run over every cause; the examples' prints are swallowed."""
    cfg = cfg.resolve()
    device = torch.device(cfg.device)
    settings = {"batch": cfg.batch, "width": breaks.WIDTH, "dtype": "fp32", "mode": "default",
                "rounds": cfg.rounds, "sample_ms": cfg.sample_ms, "grad": False,
                "fx_graph_cache": bool(torch._inductor.config.fx_graph_cache)}
    doc = {"schema": SCHEMA, "kind": KIND, "provenance": results.provenance(device, settings),
           "complete": False, "rows": []}
    with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
        for cause in breaks.CAUSES:
            doc["rows"] += measure_cause(cause, cfg)
            torch._dynamo.reset()
    doc["complete"] = True
    return doc


def produce_on(device: str) -> Callable[[], dict[str, Any]]:
    """The producer of one device's run, as a page hands it to ``pages.show``."""
    return functools.partial(produce, CostConfig(device=device))


def _ms(m: dict[str, Any]) -> str:
    return format(m["median"], ".3g")


def markdown(doc: dict[str, Any]) -> str:
    lines = ["| Cause | Written as | Graphs | Breaks | Eager ms | Compiled ms | Speedup |",
             "|---|---|--:|--:|--:|--:|--:|"]
    for r in doc["rows"]:
        lines.append(f"| {r['cause']} | {r['kind']}: {r['variant']} | {r['graph_count']} | "
                     f"{r['graph_break_count']} | {_ms(r['eager_ms'])} | "
                     f"{_ms(r['compiled_ms'])} | {r['speedup']:.2f}x |")
    return "\n".join(lines)
