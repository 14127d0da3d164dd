"""The speed ladder: from eager, one step at a time, each step adding one thing to the one before.

A rung is a way of running the model: a compile mode, a memory layout and Inductor's inference
freezing. Each rung keeps what the rung before it did and adds one change, so the speedup over the
rung before is what that one change buys. Every rung runs on its own copy of the same weights,
and all of them are timed in the same interleaved rounds as the benchmark's modes, so one row of
the machine's noise falls on all of them alike. Rows use the benchmark's schema (the rung's name
is the row's ``mode``), with ``speedup_prev`` beside ``speedup``.
``python -m snippets.bench --ladder`` runs it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
import torch._inductor.config
from torch import nn

from snippets.bench.rows import _fault, _or_none, _peak_mem_mb, _row, count_flops
from snippets.core import measure, models


@dataclass(frozen=True)
class Rung:
    name: str
    mode: str | None  # None: eager
    channels_last: bool = False
    freezing: bool = False


# --8<-- [start:rungs]
def rungs_for(device, x, autotune):
    """Each rung keeps what the one below did and adds one thing."""
    cuda, image = device.type == "cuda", x.dim() == 4
    replay = "reduce-overhead" if cuda else "default"  # no CUDA graphs on CPUs
    rungs = [Rung("eager", None), Rung("compile", "default")]
    if image:  # convolutions prefer NHWC
        rungs.append(Rung("+ channels_last", "default", channels_last=True))
    if cuda:  # one graph replay instead of one launch per kernel
        rungs.append(Rung("+ CUDA graphs", replay, channels_last=image))
    # Freezing: the weights become constants of an inference graph, so
    # Inductor folds them, fuses each batch norm into its convolution, and
    # on a CPU lets oneDNN prepack them. Inference only; off by default.
    rungs.append(Rung("+ freezing", replay, channels_last=image,
                      freezing=True))
    if autotune:  # minutes of benchmarking kernel choices per shape
        mode = "max-autotune" if cuda else "max-autotune-no-cudagraphs"
        rungs.append(Rung("+ max-autotune", mode, channels_last=image,
                          freezing=True))
    return rungs
# --8<-- [end:rungs]


@dataclass
class Built:
    rung: Rung
    fn: Callable[[], object]
    compile_s: float | None
    rel_err: float
    weights_bytes: int


def build(rung: Rung, model: nn.Module, x: torch.Tensor, ref: torch.Tensor,
          device: torch.device) -> Built:
    """One rung on its own copy of the weights: laid out, compiled (its first call timed) and
    checked against eager's output."""
    m = copy.deepcopy(model)
    xi = x
    if rung.channels_last and x.dim() == 4:
        m = m.to(memory_format=torch.channels_last)
        xi = x.contiguous(memory_format=torch.channels_last)
    weights = sum(t.numel() * t.element_size() for t in (*m.parameters(), *m.buffers()))
    if rung.mode is None:
        out = m(xi)
        return Built(rung, lambda: m(xi), None, measure.relative_error(out.float(), ref), weights)
    # Freezing is read when the graph is compiled, at the first call: patched around it only.
    with torch._inductor.config.patch(freezing=rung.freezing):
        compiled = torch.compile(m, mode=rung.mode)
        out, compile_s = measure.time_first_call(lambda: compiled(xi), device)
    err = measure.relative_error(out.float(), ref)
    del out  # a CUDA-graph output is overwritten by the next replay
    return Built(rung, lambda: compiled(xi), compile_s, err, weights)


def climb(name: str, factory: models.Factory, bs: int, *, device: torch.device,
          dtype: torch.dtype, autotune: bool, rounds: int, warm_rounds: int, sample_ms: float,
          warmup: int, tolerance: float, peak_tflops: float | None = None,
          progress: Callable[[str], None] = lambda _: None) -> Iterator[dict[str, Any]]:
    """All rungs of one (model, batch size), timed together; a rung that fails is its row."""
    model, x = models.build(factory, name, bs)
    model, x = model.to(device, dtype).eval(), x.to(device, dtype)
    ref = model(x).float().clone()
    flops = _or_none(lambda: count_flops(model, x))
    built: dict[str, Built] = {}
    faults: dict[str, dict[str, Any]] = {}
    for rung in rungs_for(device, x, autotune):
        progress(f"{name} bs={bs}: {rung.name}")
        try:
            b = build(rung, model, x, ref, device)
            for _ in range(warmup):
                b.fn()
            built[rung.name] = b
        except Exception as exc:  # one rung's fault is its row; the ladder goes on
            status, msg = _fault(exc)
            faults[rung.name] = _row(name, bs, rung.name, status=status, message=msg,
                                     flops=flops)
        finally:
            torch._dynamo.reset()  # each rung compiles from nothing, as a fresh process would
    progress(f"{name} bs={bs}: timing {len(built)} rungs together")
    timed = measure.measure_variants({k: b.fn for k, b in built.items()}, device,
                                     rounds=rounds, sample_ms=sample_ms, warmup=0,
                                     warm_rounds=warm_rounds)
    prev = None
    for rung in rungs_for(device, x, autotune):
        if rung.name in faults:
            yield faults[rung.name]
            continue
        b, m = built[rung.name], timed[rung.name]
        ok = b.rel_err <= tolerance
        row = _row(name, bs, rung.name, compile_s=b.compile_s, rel_err=b.rel_err, flops=flops,
                   latency_ms=m.as_dict(), calls_per_sample=timed.calls[rung.name],
                   status="ok" if ok else "mismatch",
                   message="" if ok else f"rel_err {b.rel_err:.3g} above {tolerance}")
        row["tflops"] = flops / (m.median * 1e-3) / 1e12 if flops else None
        if peak_tflops and row["tflops"] is not None:
            row["pct_of_peak"] = 100 * row["tflops"] / peak_tflops
        row["peak_mem_mb"] = _or_none(lambda b=b: _peak_mem_mb(b.fn, device, b.weights_bytes))
        if "eager" in built:
            r = measure.speedup(timed["eager"], m)
            row["speedup"], row["speedup_iqr"] = r.value, r.iqr
        row["speedup_prev"] = measure.speedup(timed[prev], m).value if prev else None
        row["rung"] = {"mode": rung.mode, "channels_last": rung.channels_last and x.dim() == 4,
                       "freezing": rung.freezing}
        if row["status"] == "ok" and m.noisy:
            row["status"], row["message"] = "noisy", f"IQR is {100 * m.iqr_ratio:.1f}% of median"
        prev = rung.name
        yield row
