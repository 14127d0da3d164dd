"""Freezing set as Inductor's switch against freezing passed as a compile option, looked at.

``torch.compile(model, options={"freezing": True})`` reads like the way to freeze one model, but
the option reaches Inductor only. Dynamo decides whether the weights are inputs of the graph
while it traces, from ``torch._inductor.config.freezing``, the global switch; with the switch
off, the weights stay inputs, so Inductor cannot fold them into constants. On a CPU that shows in
which convolution runs: with the switch on, Inductor hands each one to oneDNN with its weights
packed once (``mkldnn::`` operators); with the option alone, the plain convolution is called.
A small convolutional model compiled both ways on a CPU: which operators the profiler saw, and
whether both compute eager's answer. Kernels of a small model only, so the page runs it at
every build, on any machine with oneDNN.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch
from torch import nn

from snippets.core import measure
from snippets.speed import ladder

WAYS = ("option", "switch")  # options={"freezing": True}; torch._inductor.config.freezing = True


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
    options = {"freezing": True} if way == "option" else {}
    switch = ladder.frozen(True) if way == "switch" else contextlib.nullcontext()
    with torch.no_grad(), switch:
        ref = model(x)
        fn = torch.compile(model, options=options)
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
