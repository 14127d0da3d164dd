"""A replayed request stream: what a compile in the middle of traffic costs the requests, and how
a warm-up over the served shapes removes it."""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch._inductor.config

from snippets import production
from snippets.core import backends, config, counters, measure, results
from snippets.dynamic import TinyEncoder
from snippets.production import kinds

KIND = kinds.STREAM.name
BATCHES = (1, 2, 3, 4, 6, 8)  # batch sizes a request may have
SEQ = (8, 128)  # sequence lengths, inclusive


# --8<-- [start:buckets]
import torch
import torch.nn.functional as F

from snippets.dynamic import bucket  # the next bucket up

# Pad up to these: 3 x 2 = 6 compiled shapes, under Dynamo's default
# recompile limit of 8, which would otherwise send later shapes to eager.
BUCKETS = {"batch": (1, 4, 8), "seq": (64, 128)}

def pad_to_bucket(x: torch.Tensor, buckets=BUCKETS) -> torch.Tensor:
    """Zeros at the end of each sequence and extra rows, up to the next
    bucket: a handful of shapes, each compiled once at warm-up. The model is
    causal, so the real positions' outputs are unchanged."""
    b, s, _ = x.shape
    extra_s = bucket(s, buckets["seq"]) - s
    extra_b = bucket(b, buckets["batch"]) - b
    return F.pad(x, (0, 0, 0, extra_s, 0, extra_b))
# --8<-- [end:buckets]


Shape = tuple[int, int]


@dataclass(frozen=True)
class Traffic:
    """Requests of one size: batch sizes, lengths (inclusive), buckets, the encoder's heads."""

    batches: tuple[int, ...]
    seq: tuple[int, int]
    buckets: dict[str, tuple[int, ...]]
    heads: int


SIZES: dict[str, Traffic] = {
    # At most 8 sequences of at most 128 tokens to a narrow encoder: a request is a few
    # kernels of microseconds, and a compiled call's fixed cost (guards, the wrapper, launches;
    # about 0.1 to 0.2 ms on the recorded H200's host) is as long as eager's whole request.
    # It shows when compile does not pay.
    "small": Traffic(BATCHES, SEQ, BUCKETS, heads=4),
    # 4 to 16 sequences of 256 to 512 tokens to an encoder 1024 wide (16 heads of 64): about
    # 3840 tokens a request on average, 24 x 1024^2 FLOPs a token, some 97 GFLOP (about 0.3 ms
    # at TF32 on an H200) plus attention and the passes between: about half a millisecond of
    # device work a request, which hides a compiled call's fixed cost. Buckets of 2 x 2
    # shapes, padding by at most half a bucket. It shows where compile pays.
    "large": Traffic((4, 8, 12, 16), (256, 512), {"batch": (8, 16), "seq": (384, 512)},
                     heads=16),
}


def request_stream(n: int, seed: int = 0, traffic: Traffic = SIZES["small"]) -> list[Shape]:
    """``n`` (batch, length) pairs, the same for every strategy and every run with this seed."""
    rng = random.Random(seed)
    return [(rng.choice(traffic.batches), rng.randint(*traffic.seq)) for _ in range(n)]


def bucket_shapes(traffic: Traffic = SIZES["small"]) -> list[Shape]:
    return [(b, s) for b in traffic.buckets["batch"] for s in traffic.buckets["seq"]]


# name: (torch.compile options or None for eager, warm up on "served"/"buckets"/None, pad?)
STRATEGIES: dict[str, tuple[dict[str, Any] | None, str | None, bool]] = {
    "eager": (None, None, False),
    "no warm-up": ({}, None, False),
    "warm-up": ({}, "served", False),
    "warm-up, buckets": ({"dynamic": False}, "buckets", True),
    "dynamic=True": ({"dynamic": True}, None, False),
}

# reduce-overhead replays CUDA graphs: one recorded per shape served, so it asks whether
# buckets (four graphs) beat a warm-up on every shape once the host's launches are gone.
MODES = ("default", "reduce-overhead")
DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"requests": 3000, "width": 256, "backends": backends.DEFAULT["cuda"]},
    "cpu": {"requests": 2000, "width": 64, "backends": backends.DEFAULT["cpu"]},
}
# The large size's: each of its requests is thousands of tokens 1024 wide, made on the host
# before it is sent (tens of milliseconds each), and on a CPU seconds of work; fewer of them
# keep a run to minutes.
LARGE_DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {**DEFAULTS["cuda"], "requests": 500, "width": 1024},
    "cpu": {**DEFAULTS["cpu"], "requests": 16, "width": 1024},
}


@dataclass(frozen=True, kw_only=True)
class StreamConfig:
    """A stream of requests of changing shapes, served by each strategy.

    Attributes:
        size: the requests and the encoder: small (compile does not pay), large (more work a
            request)
        requests: requests replayed; fewer at --size large, each of them more work
        mode: torch.compile's mode for every compiled strategy: {choices} (CUDA and Inductor only)
    """
    device: str = "auto"
    strategies: tuple[str, ...] = tuple(STRATEGIES)
    size: str = config.option("small", choices=tuple(SIZES))
    requests: int | None = config.option(None, positive=True)
    width: int | None = None  # the encoder's model width
    seed: int = 0
    backend: str = "inductor"  # "eager": Dynamo alone, to count compiles in seconds
    mode: str = config.option("default", choices=MODES)
    check_every: int = 100  # compare one request in this many with eager, outside the timing
    backends: backends.BackendSettings | None = None

    def __post_init__(self) -> None:
        config.check(self)
        if self.mode != "default" and (self.backend != "inductor" or config.device_type(
                config.resolve_device(self.device)) == "cpu"):
            raise config.ConfigError("mode", f"{self.mode} needs CUDA + inductor")

    @property
    def traffic(self) -> Traffic:
        return SIZES[self.size]

    def resolve(self) -> StreamConfig:
        return config.resolve(self, LARGE_DEFAULTS if self.size == "large" else DEFAULTS)

    def settings(self) -> dict[str, Any]:
        t = self.traffic
        return {"strategies": list(self.strategies), "size": self.size,
                "requests": self.requests, "width": self.width, "heads": t.heads,
                "seed": self.seed, "batches": list(t.batches), "seq": list(t.seq),
                "buckets": t.buckets, "dtype": "fp32", "fx_graph_cache": False,
                "inductor_cache": backends.cold_cache_setting("strategy"),
                "check_every": self.check_every, "backend": self.backend, "mode": self.mode,
                "backends": self.backends.as_dict(),
                "tf32": self.backends.tf32, "grad": False}


# --8<-- [start:stream]
def answer(compiled, x, pad=None):
    b, s, _ = x.shape
    return compiled(pad(x) if pad else x)[:b, :s]


def locked(warmed_up: bool):
    """After a warm-up over every served shape, a request that would
    compile raises instead of stalling its caller for seconds."""
    import torch

    return torch.compiler.set_stance(
        "fail_on_recompile" if warmed_up else "default")
# --8<-- [end:stream]


def _replay(fn: Callable, shapes: Sequence[Shape], cfg: StreamConfig, model: torch.nn.Module,
            pad: bool, warmed_up: bool) -> dict[str, Any]:
    """Every request timed whole; one in ``check_every`` compared with eager afterwards."""
    dev = torch.device(cfg.device)
    gen = torch.Generator().manual_seed(cfg.seed)
    ms, errors, wrong = [], [], 0
    padding = functools.partial(pad_to_bucket, buckets=cfg.traffic.buckets) if pad else None
    before = counters.graphs_compiled()
    with locked(warmed_up), torch.no_grad():
        for i, (b, s) in enumerate(shapes):
            x = torch.randn(b, s, cfg.width, generator=gen).to(dev)
            try:
                with measure.Stopwatch(dev) as watch:
                    out = answer(fn, x, padding)
            except Exception as exc:  # a compile refused by the stance: counted, and on
                errors.append(production.fault(exc))
                continue
            ms.append(watch.seconds * 1e3)
            if i % cfg.check_every == 0:
                wrong += measure.relative_error(out, model(x)) > 1e-3
    s = sorted(ms) or [math.nan]
    def q(p: float) -> float | None:
        return None if math.isnan(s[0]) else measure.quantile(s, p)
    return {"compiles": counters.graphs_compiled() - before, "refused": len(errors),
            "message": errors[0] if errors else "", "p50_ms": q(0.5), "p99_ms": q(0.99),
            "max_ms": q(1.0),
            "all_correct": wrong == 0, "requests_ms": [round(v, 4) for v in ms]}


def run_strategy(name: str, cfg: StreamConfig, shapes: Sequence[Shape]) -> dict[str, Any]:
    """One strategy over the whole stream, from a fresh compile."""
    options, warm, pad = STRATEGIES[name]
    torch._dynamo.reset()
    torch.manual_seed(0)
    dev = torch.device(cfg.device)
    model = TinyEncoder(d=cfg.width, heads=cfg.traffic.heads).to(dev).eval()
    mode = {} if cfg.mode == "default" else {"mode": cfg.mode}
    fn = model if options is None else torch.compile(model, backend=cfg.backend, **mode,
                                                     **options)
    row = {"strategy": name, "status": "ok", "message": "", "requests": len(shapes),
           "compiles": None, "warmup_compiles": 0, "warmup_s": None, "p50_ms": None,
           "p99_ms": None, "max_ms": None}
    try:
        served = (sorted(set(shapes)) if warm == "served"
                  else bucket_shapes(cfg.traffic) if warm else [])
        # Under CUDA graphs a shape's first call runs it, the second records its graph: warm
        # each shape up to a replay, or its first request would pay the recording.
        served = [shape for shape in served for _ in range(1 if cfg.mode == "default" else 3)]
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
    shapes = request_stream(cfg.requests, cfg.seed, cfg.traffic)
    inductor_config = torch._inductor.config
    cached = inductor_config.fx_graph_cache
    # As on the dynamic-shapes page: without the graph cache, a strategy does not reuse kernels
    # an earlier one compiled, so each compile it counts is its own stall.
    inductor_config.fx_graph_cache = False
    try:
        with cfg.backends.apply():
            for name in cfg.strategies:
                progress(f"stream: {name}")
                # Each strategy compiles in an empty cache, as a new process would.
                with backends.cold_cache():
                    row = run_strategy(name, cfg, shapes)
                doc["rows"].append({**row, "date": doc["provenance"]["date"]})
                on_row(doc)
    finally:
        inductor_config.fx_graph_cache = cached
    doc["complete"] = True
    return doc
