"""Freezing set as Inductor's switch against freezing passed as a compile option, looked at.

``torch.compile(model, options={"freezing": True})`` reads like the way to freeze one model, but
the option reaches Inductor only. Dynamo decides whether the weights are inputs of the graph
while it traces, from ``torch._inductor.config.freezing``, the global switch; with the switch
off, the weights stay inputs, so Inductor cannot fold them into constants. On a CPU that shows in
which convolution runs: with the switch on, Inductor hands each one to oneDNN with its weights
packed once (``mkldnn::`` operators); with the option alone, the plain convolution is called.
A small convolutional model compiled both ways (the option alone, the option with the switch)
on a CPU: which operators the profiler saw, and
whether both compute eager's answer. Kernels of a small model only, so any machine with oneDNN
records it in seconds (``python -m snippets.site.produce``).

``check`` is the recorded run (``python -m snippets.speed --freezing``): on the guide's models,
no freezing, the option alone, and the option with the switch, each compiled as the ladder's
freezing rung is, timed together, and on a GPU what each CUDA-graph replay copies first.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch import nn

from snippets.speed import kinds, ladder, settings
from snippets.bench.rows import new_row
from snippets.core import examples, measure, models
from snippets.explain.fastpath import fastpath, has_encoder

# options={"freezing": True} alone; the same with torch._inductor.config.freezing = True around
WAYS = ("option", "switch")


def _small() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16), nn.ReLU(),
                          nn.Conv2d(16, 16, 3), nn.BatchNorm2d(16), nn.ReLU()).eval()
    x = torch.randn(2, 3, 16, 16)
    cl = torch.channels_last
    return model.to(memory_format=cl), x.contiguous(memory_format=cl)


def compiled_ops(way: str) -> dict[str, Any]:
    """One way of asking for freezing: the convolution operators a profiled call ran, whether
    oneDNN's prepacked ones are among them, and the error against eager's output."""
    model, x = _small()
    torch._dynamo.reset()
    switch = ladder.frozen(True) if way == "switch" else contextlib.nullcontext()
    with torch.no_grad(), switch:
        ref = model(x)
        fn = torch.compile(model, options={"freezing": True})
        out = fn(x)
        with torch.profiler.profile() as prof:
            fn(x)
    torch._dynamo.reset()
    ops = sorted({e.key for e in prof.key_averages() if "conv" in e.key.lower()})
    return {"way": way, "ops": ops,
            "prepacked": any(op.startswith("mkldnn::") for op in ops),
            "rel_err": measure.relative_error(out, ref)}


def compared() -> list[dict[str, Any]]:
    """Both ways, on a CPU (where oneDNN's prepacking shows what freezing did)."""
    if not torch.backends.mkldnn.is_available():
        return []
    return [compiled_ops(way) for way in WAYS]


# ---- recorded: the three ways timed together, and what each replay copies ---------------------

KIND = kinds.FREEZING.name
# No freezing; options={"freezing": True} alone; the option with the switch on around the calls.
POINTS = ("off", "option", "switch")
POINT_WORDS = {"off": "no freezing", "option": "the option alone", "switch": "option and switch"}


def replay_copies(fn: Callable[[], object], calls: int = 3) -> dict[str, float] | None:
    """What a CUDA-graph replay copied into the graph's own input buffers, per call: tensors and
    MiB. CUDA-graph trees copy every input that is not static with one ``torch._foreach_copy_``
    before each replay, so that call is counted. The input itself is never static, so a call
    that copies nothing means this torch copies some other way: None, not a count of zero."""
    seen: list[tuple[int, int]] = []
    real = torch._foreach_copy_

    def counted(dst, src, *args, **kwargs):
        seen.append((len(dst), sum(t.numel() * t.element_size() for t in dst)))
        return real(dst, src, *args, **kwargs)

    torch._foreach_copy_ = counted
    try:
        for _ in range(calls):
            fn()
    finally:
        torch._foreach_copy_ = real
    if not seen:
        return None
    return {"tensors": sum(n for n, _ in seen) / calls,
            "mb": sum(b for _, b in seen) / calls / 2**20}


def check(name: str, factory: models.Factory, bs: int, *, device: torch.device,
          torch_dtype: torch.dtype, rounds: int, warm_rounds: int, sample_ms: float,
          warmup: int, tolerance: float,
          progress: Callable[[str], None] = lambda _: None) -> Iterator[dict[str, Any]]:
    """The three ways (``POINTS``) of one (model, batch size), each compiled as the ladder's
    freezing rung is (its mode, layout and fast path), timed together in interleaved rounds; on
    a GPU, what each replay copies. A way that fails is its row."""
    model, x = models.build(factory, name, bs)
    model, x = model.to(device, torch_dtype).eval(), examples.place(x, device, torch_dtype)
    # The ladder's own freezing rung (its mode, layout and fast path: an encoder without it,
    # whose fused op would hold the weights out of Inductor's reach), freezing on or off.
    rung = next(r for r in ladder.rungs_for(device, x, False, has_encoder(model))
                if r.key == "freezing")
    ways = {point: dataclasses.replace(rung, freezing=point != "off") for point in POINTS}

    @contextlib.contextmanager
    def around(point: str) -> Iterator[None]:
        with ladder.frozen(point == "switch"), fastpath(rung.fastpath):
            yield

    ref = examples.reference(examples.call(model, x))
    weights_mb = examples.parameter_bytes(model) / 2**20
    input_mb = examples.nbytes(x) / 2**20
    torch._dynamo.reset()
    fns: dict[str, Callable[[], object]] = {}
    rows: dict[str, dict[str, Any]] = {}
    for point in POINTS:
        progress(f"{name} bs={bs}: freezing {POINT_WORDS[point]}")
        rows[point] = new_row(name, bs, rung.mode, point=point, weights_mb=weights_mb,
                           input_mb=input_mb, **({} if rung.fastpath else {"fastpath": False}))
        fn = settings.built_point(rows[point],
                                  functools.partial(_build, ways[point], model, x, ref, device),
                                  around(point), warmup, tolerance)
        if fn is not None:
            fns[point] = fn
    if fns:
        progress(f"{name} bs={bs}: timing {len(fns)} ways together")
        timed = measure.measure_variants(fns, device, rounds=rounds, sample_ms=sample_ms,
                                         warmup=0, warm_rounds=warm_rounds,
                                         around=around)
        settings.finish(rows, fns, timed, POINTS[0])
        if device.type == "cuda":
            for point, fn in fns.items():
                with around(point):
                    rows[point]["replay_copy"] = replay_copies(fn)
    torch._dynamo.reset()
    yield from rows.values()


def _build(rung: ladder.Rung, model: nn.Module, x: examples.Example, ref: list[torch.Tensor],
           device: torch.device) -> tuple[Callable[[], object], float | None, float]:
    """One way, built as the ladder builds a rung: its callable, compile time and error."""
    b = ladder.build(rung, model, x, ref, device)
    return b.fn, b.compile_s, b.rel_err
