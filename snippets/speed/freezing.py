"""Freezing set as Inductor's switch against freezing passed as a compile option.

``options={"freezing": True}`` reaches Inductor only: Dynamo decides while it traces whether the
weights are graph inputs from ``torch._inductor.config.freezing``, the global switch, and with it
off Inductor cannot fold them into constants. On a CPU that shows in which convolution runs
(oneDNN's prepacked ``mkldnn::`` operators with the switch on): ``compared``, in seconds on any
machine with oneDNN. ``check`` is the recorded run (``python -m snippets.speed --freezing``): no
freezing, the option alone, and the option with the switch, each compiled as the ladder's freezing
rung is, timed together, and on a GPU what each CUDA-graph replay copies.
"""

from __future__ import annotations

import contextlib
import dataclasses
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
    """What a CUDA-graph replay copied into the graph's input buffers per call (tensors, MiB),
    counted at the one ``torch._foreach_copy_`` CUDA-graph trees call before each replay. The
    input is never static, so no copy seen means this torch copies another way: None, not 0."""
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
    freezing rung is, timed together; on a GPU, what each replay copies. A failed way is its row."""
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
    rows = {point: new_row(name, bs, rung.mode, point=point, weights_mb=weights_mb,
                           input_mb=input_mb, **({} if rung.fastpath else {"fastpath": False}))
            for point in POINTS}

    def build(point: str) -> tuple[Callable[[], object], float | None, float]:
        b = ladder.build(ways[point], model, x, ref, device)
        return b.fn, b.compile_s, b.rel_err

    fns = settings.time_points(rows, build, around, device, rounds=rounds, warm_rounds=warm_rounds,
                               sample_ms=sample_ms, warmup=warmup, tolerance=tolerance,
                               progress=progress)
    for point, fn in fns.items() if device.type == "cuda" else ():
        with around(point):
            rows[point]["replay_copy"] = replay_copies(fn)
    torch._dynamo.reset()
    yield from rows.values()
