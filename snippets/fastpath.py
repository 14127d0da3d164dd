"""Why compiling the tutorial's transformer buys little in inference: the encoder's fast path.

In eval mode without grad, ``nn.TransformerEncoderLayer`` runs one fused native op per layer
(``torch._transformer_encoder_layer_fwd``). Dynamo records that op as it is, and Inductor can only
call it: there is nothing left to fuse. Switching the fast path off before compiling lets Dynamo
trace the layer's parts (linear, attention, layer norm), which Inductor can fuse. This module shows
the graph either way and times the four combinations; ``findings`` says what the timings show,
which at the benchmark's sizes on an H200 is that fusing did not pay: launches, not GPU work, set
the pace there.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
import torch._inductor.config

from snippets import measure, models, results
from snippets.explain import SCHEMA, explain_quietly

KIND = "transformer-fastpath"
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
VARIANTS = ("eager, fast path", "eager, no fast path", "compiled, fast path",
            "compiled, no fast path")


@contextlib.contextmanager
def fastpath(enabled: bool) -> Iterator[None]:
    """Set the encoder's fast path for a block; ``torch.backends.mha`` has had it since 2.3."""
    mha = torch.backends.mha
    was = mha.get_fastpath_enabled()
    mha.set_fastpath_enabled(enabled)
    try:
        yield
    finally:
        mha.set_fastpath_enabled(was)


# --8<-- [start:fix]
def compile_without_fastpath(model: torch.nn.Module) -> torch.nn.Module:
    # Off before the first call, which is when Dynamo traces: the traced layers are then plain
    # linear, attention and layer-norm ops that Inductor can fuse, not one opaque fused op each.
    torch.backends.mha.set_fastpath_enabled(False)
    return torch.compile(model)
# --8<-- [end:fix]


def graph_doc() -> dict[str, Any]:
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
    return {"schema": SCHEMA, "kind": "transformer-graph",
            "provenance": results.provenance(torch.device("cpu"), {}), "complete": True,
            "rows": rows}


def graph_markdown(doc: dict[str, Any]) -> str:
    lines = ["| Fast path | Graphs | Breaks | Calls in the graph (count) |", "|---|--:|--:|---|"]
    for r in doc["rows"]:
        ops = ", ".join(f"`{name}` ({n})" for name, n in r["ops"].items())
        lines.append(f"| {'on' if r['fastpath'] else 'off'} | {r['graph_count']} | "
                     f"{r['graph_break_count']} | {ops} |")
    return "\n".join(lines)


@dataclass(frozen=True, kw_only=True)
class FastpathConfig:
    device: str = "cpu"
    batch_sizes: tuple[int, ...] | None = None  # (1, 32) on CUDA, (1,) on CPU
    dtype: str | None = None  # bf16 on CUDA, fp32 on CPU (as the benchmark runs them)
    rounds: int | None = None  # 30 on CUDA, 5 on CPU
    sample_ms: float | None = None  # 25 ms on CUDA, 100 ms on CPU

    def resolve(self) -> FastpathConfig:
        cuda = self.device.startswith("cuda")
        return FastpathConfig(
            device=self.device, batch_sizes=self.batch_sizes or ((1, 32) if cuda else (1,)),
            dtype=self.dtype or ("bf16" if cuda else "fp32"),
            rounds=self.rounds or (30 if cuda else 5),
            sample_ms=self.sample_ms or (25.0 if cuda else 100.0))


def measure_batch(cfg: FastpathConfig, bs: int) -> list[dict[str, Any]]:
    device, dtype = torch.device(cfg.device), DTYPES[cfg.dtype]
    torch.manual_seed(0)
    model, x = models.transformer(bs)
    model, x = model.to(device, dtype).eval(), x.to(device, dtype)
    ref = model(x).float()
    fns, extra = {}, {}
    for name in VARIANTS:
        enabled = name.endswith(", fast path")
        # The flag is set around every call, so each variant runs as it was traced.
        if name.startswith("eager"):
            fns[name] = lambda e=enabled: _call(model, x, e)
            extra[name] = {"compile_s": None, "rel_err": measure.relative_error(fns[name](), ref)}
            continue
        compiled = torch.compile(model, dynamic=False)  # one batch size each: specialized kernels
        t0 = time.perf_counter()
        out = _call(compiled, x, enabled)  # the first call compiles
        measure.synchronize(device)
        extra[name] = {"compile_s": time.perf_counter() - t0,
                       "rel_err": measure.relative_error(out.float(), ref)}
        fns[name] = lambda c=compiled, e=enabled: _call(c, x, e)
    for fn in fns.values():
        fn()
    calls = {n: measure.calls_per_sample(measure.time_calls(f, 3, device), cfg.sample_ms)
             for n, f in fns.items()}
    timed = measure.interleaved(fns, cfg.rounds, calls, device)
    base = timed[VARIANTS[0]]
    return [{"batch_size": bs, "variant": name, **extra[name],
             "latency_ms": {"median": m.median, "iqr": m.iqr, "samples": list(m.samples)},
             "speedup": measure.speedup(base, m).value} for name, m in timed.items()]


def _call(model: torch.nn.Module, x: torch.Tensor, enabled: bool) -> torch.Tensor:
    with fastpath(enabled):
        return model(x)


def produce(cfg: FastpathConfig = FastpathConfig()) -> dict[str, Any]:
    cfg = cfg.resolve()
    device = torch.device(cfg.device)
    settings = {"model": "transformer", "batch_sizes": list(cfg.batch_sizes), "dtype": cfg.dtype,
                "mode": "default", "rounds": cfg.rounds, "sample_ms": cfg.sample_ms,
                "grad": False, "train": False,
                # compile_s of a warm cache is seconds where a cold one is a minute: say which
                "fx_graph_cache": bool(torch._inductor.config.fx_graph_cache)}
    if device.type == "cuda":
        torch.set_float32_matmul_precision("high")  # as the benchmark: TF32 for fp32 matmuls
    doc = {"schema": SCHEMA, "kind": KIND, "provenance": results.provenance(device, settings),
           "complete": False, "rows": []}
    with torch.no_grad():
        for bs in cfg.batch_sizes:
            doc["rows"] += measure_batch(cfg, bs)
            torch._dynamo.reset()
    doc["complete"] = True
    return doc


def produce_on(device: str) -> Callable[[], dict[str, Any]]:
    return functools.partial(produce, FastpathConfig(device=device))


def markdown(doc: dict[str, Any]) -> str:
    lines = ["| Batch | Variant | Compile s | Median ms | IQR ms | vs eager fast path | rel err |",
             "|--:|---|--:|--:|--:|--:|--:|"]
    for r in doc["rows"]:
        lat = r["latency_ms"]
        comp = "–" if r["compile_s"] is None else f"{r['compile_s']:.1f}"
        lines.append(f"| {r['batch_size']} | {r['variant']} | {comp} | {lat['median']:.3g} | "
                     f"{lat['iqr']:.2g} | {r['speedup']:.2f}x | {r['rel_err']:.1e} |")
    return "\n".join(lines)


def findings(doc: dict[str, Any]) -> str:
    """The comparisons the page draws, computed from the recorded rows, one line per batch."""
    out = []
    for bs in dict.fromkeys(r["batch_size"] for r in doc["rows"]):
        ms = {r["variant"]: r["latency_ms"]["median"] for r in doc["rows"]
              if r["batch_size"] == bs}
        eager, comp, comp_off = (ms[VARIANTS[0]], ms[VARIANTS[2]], ms[VARIANTS[3]])
        fastest = min(ms, key=ms.get)

        out.append(f"- Batch {bs}: compiled with the fast path takes {comp / eager:.2f} of "
                   f"eager's time; compiled without it takes {comp_off / eager:.2f} of eager's "
                   f"time and {comp_off / comp:.2f} of the time compiled with it. "
                   f"Fastest: *{fastest}*.")
    return "\n".join(out)
