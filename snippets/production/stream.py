"""A replayed request stream: what a compile in the middle of traffic costs the requests, and how
a warm-up over the served shapes removes it.

A few thousand requests (mixed batch sizes and sequence lengths, seeded) go to the dynamic-shapes
page's small causal encoder, once per strategy: no warm-up, a warm-up over every served shape,
padding to a few buckets warmed up in advance, and ``dynamic=True``. Each request is timed whole,
as its caller waits for it. After a warm-up the stream runs under the ``fail_on_recompile``
stance, so a request that would compile raises instead: the row's compile count is then proof,
not an estimate.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch._inductor.config
import torch.nn.functional as F

from snippets import production
from snippets.core import backends, config, measure, results
from snippets.dynamic import TinyEncoder, bucket

KIND = "production-stream"
BATCHES = (1, 2, 3, 4, 6, 8)  # batch sizes a request may have
SEQ = (8, 128)  # sequence lengths, inclusive
# Pad up to these: 3 x 2 = 6 compiled shapes, under Dynamo's default recompile limit of 8
# (torch._dynamo.config.recompile_limit), which would otherwise send later shapes to eager.
BUCKETS = {"batch": (1, 4, 8), "seq": (64, 128)}
Shape = tuple[int, int]


def request_stream(n: int, seed: int = 0) -> list[Shape]:
    """``n`` (batch, length) pairs, the same for every strategy and every run with this seed."""
    rng = random.Random(seed)
    return [(rng.choice(BATCHES), rng.randint(*SEQ)) for _ in range(n)]


# --8<-- [start:buckets]
def pad_to_bucket(x: torch.Tensor) -> torch.Tensor:
    """Zeros at the end of each sequence and extra rows, up to the next
    bucket: a handful of shapes, each compiled once at warm-up. The model is
    causal, so the real positions' outputs are unchanged."""
    b, s, _ = x.shape
    extra_s = bucket(s, BUCKETS["seq"]) - s
    extra_b = bucket(b, BUCKETS["batch"]) - b
    return F.pad(x, (0, 0, 0, extra_s, 0, extra_b))
# --8<-- [end:buckets]


def bucket_shapes() -> list[Shape]:
    return [(b, s) for b in BUCKETS["batch"] for s in BUCKETS["seq"]]


# name: (torch.compile options or None for eager, warm up on "served"/"buckets"/None, pad?)
STRATEGIES: dict[str, tuple[dict[str, Any] | None, str | None, bool]] = {
    "eager": (None, None, False),
    "no warm-up": ({}, None, False),
    "warm-up": ({}, "served", False),
    "warm-up, buckets": ({"dynamic": False}, "buckets", True),
    "dynamic=True": ({"dynamic": True}, None, False),
}

DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"requests": 3000, "width": 256, "backends": backends.DEFAULT["cuda"]},
    "cpu": {"requests": 2000, "width": 64, "backends": backends.DEFAULT["cpu"]},
}


@dataclass(frozen=True, kw_only=True)
class StreamConfig:
    device: str = "auto"
    strategies: tuple[str, ...] = tuple(STRATEGIES)
    requests: int | None = None
    width: int | None = None  # the encoder's model width
    seed: int = 0
    backend: str = "inductor"  # "eager": Dynamo alone, to count compiles in seconds
    check_every: int = 100  # compare one request in this many with eager, outside the timing
    backends: backends.BackendSettings | None = None

    def resolve(self) -> StreamConfig:
        return config.resolve(self, DEFAULTS)

    def settings(self) -> dict[str, Any]:
        return {"strategies": list(self.strategies), "requests": self.requests,
                "width": self.width, "seed": self.seed, "batches": list(BATCHES),
                "seq": list(SEQ), "buckets": BUCKETS, "dtype": "fp32", "fx_graph_cache": False,
                "check_every": self.check_every, "backend": self.backend,
                "backends": self.backends.as_dict(),
                "tf32": self.backends.tf32, "grad": False}


# --8<-- [start:stream]
def answer(compiled, x: torch.Tensor, pad: bool) -> torch.Tensor:
    b, s, _ = x.shape
    return compiled(pad_to_bucket(x) if pad else x)[:b, :s]


def locked(warmed_up: bool):
    """After a warm-up over every served shape, a request that would
    compile raises instead of stalling its caller for seconds."""
    return torch.compiler.set_stance(
        "fail_on_recompile" if warmed_up else "default")
# --8<-- [end:stream]


def _replay(fn: Callable, shapes: Sequence[Shape], cfg: StreamConfig, model: torch.nn.Module,
            pad: bool, warmed_up: bool) -> dict[str, Any]:
    """Every request timed whole; one in ``check_every`` compared with eager afterwards."""
    dev = torch.device(cfg.device)
    gen = torch.Generator().manual_seed(cfg.seed)
    ms, errors, wrong = [], [], 0
    before = production.graphs_compiled()
    with locked(warmed_up), torch.no_grad():
        for i, (b, s) in enumerate(shapes):
            x = torch.randn(b, s, cfg.width, generator=gen).to(dev)
            try:
                with measure.Stopwatch(dev) as watch:
                    out = answer(fn, x, pad)
            except Exception as exc:  # a compile refused by the stance: counted, and on
                errors.append(production.fault(exc))
                continue
            ms.append(watch.seconds * 1e3)
            if i % cfg.check_every == 0:
                wrong += measure.relative_error(out, model(x)) > 1e-3
    s = sorted(ms) or [math.nan]
    def q(p: float) -> float | None:
        return None if math.isnan(s[0]) else measure.quantile(s, p)
    return {"compiles": production.graphs_compiled() - before, "refused": len(errors),
            "message": errors[0] if errors else "", "p50_ms": q(0.5), "p99_ms": q(0.99),
            "max_ms": q(1.0),
            "all_correct": wrong == 0, "requests_ms": [round(v, 4) for v in ms]}


def run_strategy(name: str, cfg: StreamConfig, shapes: Sequence[Shape]) -> dict[str, Any]:
    """One strategy over the whole stream, from a fresh compile."""
    options, warm, pad = STRATEGIES[name]
    torch._dynamo.reset()
    torch.manual_seed(0)
    dev = torch.device(cfg.device)
    model = TinyEncoder(d=cfg.width).to(dev).eval()
    fn = model if options is None else torch.compile(model, backend=cfg.backend, **options)
    row = {"strategy": name, "status": "ok", "message": "", "requests": len(shapes),
           "compiles": None, "warmup_compiles": 0, "warmup_s": None, "p50_ms": None,
           "p99_ms": None, "max_ms": None}
    try:
        served = sorted(set(shapes)) if warm == "served" else bucket_shapes() if warm else []
        with measure.Stopwatch(dev) as watch:
            row["warmup_compiles"] = production.warm_up(
                fn, served, make=lambda shape: torch.randn(*shape, cfg.width, device=dev))
        row["warmup_s"] = watch.seconds if warm else None
        row.update(_replay(fn, shapes, cfg, model, pad, warmed_up=warm is not None))
    except Exception as exc:  # one strategy's fault is its row's; the run goes on
        row.update(status="error", message=production.fault(exc))
    if row.get("refused") or row.get("all_correct") is False:
        row["status"] = "error" if row.get("refused") else "mismatch"
    torch._dynamo.reset()
    return row


def document(cfg: StreamConfig = StreamConfig(), *, commit: str | None = None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None,
             progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    cfg = cfg.resolve()
    doc = results.new_document(
        KIND, results.provenance(torch.device(cfg.device), cfg.settings(), commit=commit))
    shapes = request_stream(cfg.requests, cfg.seed)
    inductor_config = torch._inductor.config
    cached = inductor_config.fx_graph_cache
    # As on the dynamic-shapes page: without the graph cache, a strategy does not reuse kernels
    # an earlier one compiled, so each compile it counts is its own stall.
    inductor_config.fx_graph_cache = False
    try:
        with cfg.backends.apply():
            for name in cfg.strategies:
                progress(f"stream: {name}")
                doc["rows"].append({**run_strategy(name, cfg, shapes),
                                    "date": doc["provenance"]["date"]})
                on_row(doc)
    finally:
        inductor_config.fx_graph_cache = cached
    doc["complete"] = True
    return doc


def produce_on(device: str, **fields: Any) -> Callable[..., dict[str, Any]]:
    return functools.partial(document, StreamConfig(device=device, **fields))
