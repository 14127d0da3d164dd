"""Dynamic shapes: how often a model recompiles as its input shapes change, and what each costs.

One small causal encoder is called with a schedule of batch sizes and sequence lengths under each
way of telling the compiler about shapes. For every call we record whether it compiled and how
long it took (a call that compiles stalls the caller), then time dynamic kernels against
specialized ones at one shape, at one of two sizes (``SIZES``): ``small`` shows when compile does
not pay, ``large`` where it does. ``python -m snippets.dynamic`` prints the table; ``recompiles``
watches for recompiles and ``tables`` draws the page's tables.
"""

from __future__ import annotations

from dataclasses import dataclass

# torch, F, nn, Callable and Any are imported in the shown sections below, so that each runs alone
from snippets.core import measure
from snippets.core.counters import graphs_compiled
from snippets.dynamic import kinds

KIND = kinds.SHAPES.name
# (batch, sequence length) per call: repeats, a batch change, then sequence changes; eleven
# distinct shapes, more than the default recompile limit of 8, and one batch of 1.
SCHEDULE = ((4, 32), (4, 32), (8, 32), (2, 32), (8, 48), (4, 64), (16, 17), (1, 40), (3, 100),
            (8, 128), (5, 77), (6, 96), (4, 32), (8, 48))


@dataclass(frozen=True)
class Size:
    """The encoder's width and heads, and the (batch, sequence length) its kernels are timed at."""

    width: int
    heads: int
    steady: tuple[int, int]


SIZES: dict[str, Size] = {
    # A call is about fifteen kernels of microseconds each: a compiled call's fixed cost (guards,
    # the wrapper, launches; about 0.1 to 0.2 ms on the recorded H200's host) is as large as the
    # call. It shows when compile does not pay.
    "small": Size(64, 4, (8, 64)),
    # 4096 tokens through a layer 1024 wide (16 heads of 64): the matmuls are 24 x 1024^2 FLOPs
    # a token, 103 GFLOP a call (about 0.3 ms at TF32 on an H200), the causal attention about
    # 4 GFLOP more, and each pass over a 4096 x 1024 fp32 activation (17 MB) a few
    # microseconds; some 0.5 ms of device work, which hides either call's fixed cost. What
    # compiling can then save is the device's work: the passes fusion removes (layer norms and
    # residual adds), not launches. It shows where compile pays, and by how much at most.
    "large": Size(1024, 16, (8, 512)),
}


# --8<-- [start:model]
import torch
import torch.nn.functional as F
from torch import nn


class TinyEncoder(nn.Module):
    """Pre-norm causal self-attention and an MLP: small, so a compile takes
    seconds. Causal, so padding at the end of a sequence leaves the real
    positions' outputs unchanged."""

    def __init__(self, d: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(
            nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        qkv = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, -1)
        q, k, v = qkv.unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                           v.transpose(1, 2), is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.mlp(self.norm2(x))
# --8<-- [end:model]


def recompile_limit_name() -> str:
    """``recompile_limit`` from torch 2.7; ``cache_size_limit`` before (still an alias after)."""
    cfg = torch._dynamo.config
    return "recompile_limit" if hasattr(cfg, "recompile_limit") else "cache_size_limit"


def recompile_limit() -> int:
    return int(getattr(torch._dynamo.config, recompile_limit_name()))


# --8<-- [start:strategies]
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

# Pad each size up to the next of these.
BUCKETS = {"batch": (4, 16), "seq": (32, 64, 128)}


def mark_both(x: torch.Tensor) -> torch.Tensor:
    # An error if the traced code forces either size to a constant; a size
    # of 1 still gets a graph of its own, without an error.
    torch._dynamo.mark_dynamic(x, 0)  # batch
    torch._dynamo.mark_dynamic(x, 1)  # sequence length
    return x


def maybe_mark_both(x: torch.Tensor) -> torch.Tensor:
    # A hint: the batch may still specialize (for size 1, say).
    torch._dynamo.maybe_mark_dynamic(x, 0)
    torch._dynamo.maybe_mark_dynamic(x, 1)
    return x


def mark_batch_unbacked(x: torch.Tensor) -> torch.Tensor:
    # Unbacked: a size the compiler assumes nothing about, 1 included, so a
    # batch of 1 needs no graph of its own (code that branches on it breaks).
    torch._dynamo.decorators.mark_unbacked(x, 0)
    torch._dynamo.mark_dynamic(x, 1)
    return x


def bucket(size: int, buckets: tuple[int, ...]) -> int:
    return next((b for b in buckets if b >= size), size)


def pad_to_bucket(x: torch.Tensor) -> torch.Tensor:
    b, s, _ = x.shape
    extra_s = bucket(s, BUCKETS["seq"]) - s
    extra_b = bucket(b, BUCKETS["batch"]) - b
    # Zeros at the end of each sequence and extra rows: causal attention keeps
    # the real rows exact.
    return F.pad(x, (0, 0, 0, extra_s, 0, extra_b))


def run_padded(compiled: nn.Module, x: torch.Tensor) -> torch.Tensor:
    b, s, _ = x.shape
    # The padding's rows and positions are not the caller's: cut them off.
    return compiled(pad_to_bucket(x))[:b, :s]


# What is done to an input first.
Prepare = Callable[[torch.Tensor], torch.Tensor]

STRATEGIES: dict[str, tuple[dict[str, Any], Prepare]] = {
    # static first, then dynamic where a size changed
    "default": ({}, lambda x: x),
    "dynamic=True": ({"dynamic": True}, lambda x: x),
    # a new compile for every new shape
    "dynamic=False": ({"dynamic": False}, lambda x: x),
    "mark_dynamic": ({}, mark_both),
    "maybe_mark_dynamic": ({}, maybe_mark_both),
    # one specialized compile per bucket
    "pad to buckets": ({"dynamic": False}, pad_to_bucket),
}
# --8<-- [end:strategies]
if hasattr(torch._dynamo.decorators, "mark_unbacked"):  # not in every release this guide covers
    STRATEGIES["mark_unbacked"] = ({}, mark_batch_unbacked)


def run_schedule(strategy: str, *, backend: str = "inductor", device: str = "cpu",
                 schedule: tuple[tuple[int, int], ...] = SCHEDULE,
                 size: Size = SIZES["small"]) -> list[dict[str, Any]]:
    """Call a fresh compile of the encoder on every shape; one record per call."""
    torch._dynamo.reset()
    options, prepare = STRATEGIES[strategy]
    dev = torch.device(device)
    torch.manual_seed(0)
    model = TinyEncoder(size.width, size.heads).to(dev).eval()
    compiled = torch.compile(model, backend=backend, **options)
    calls = []
    for batch, seq in schedule:
        x = torch.randn(batch, seq, size.width, device=dev)
        before = graphs_compiled()
        ran_as = [batch, seq]
        out, error = None, ""
        watch = measure.Stopwatch(dev)  # a call that compiles is a stall: time every call whole
        try:
            ran_as = list(prepare(x).shape[:2])  # the shape the compiled model is given
            with watch:
                out = (run_padded(compiled, x) if prepare is pad_to_bucket
                       else compiled(prepare(x)))
        except Exception as exc:  # mark_dynamic on a size that must specialize raises
            error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        ms = watch.seconds * 1e3
        ok = out is not None and measure.relative_error(out, model(x)) < 1e-3
        calls.append({"batch": batch, "seq": seq, "ran_as": ran_as, "ms": ms,
                      "compiled": graphs_compiled() - before,
                      "correct": ok, "error": error})
    torch._dynamo.reset()
    return calls


def summarize(strategy: str, calls: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    stalls = [c["ms"] for c in calls if c["compiled"]]
    compiles = sum(c["compiled"] for c in calls)
    seen: set[tuple[int, int]] = set()
    eager = 0
    for c in calls:  # a new shape that compiled nothing ran eagerly: the limit was hit
        shape = (c["batch"], c["seq"])
        eager += bool(seen and shape not in seen and not c["compiled"] and not c["error"])
        seen.add(shape)
    return {"strategy": strategy, "compiles": compiles,
            "compiled_at": [c["ran_as"] for c in calls if c["compiled"]],
            "stall_total_ms": sum(stalls), "stall_max_ms": max(stalls, default=0.0),
            "eager_after_limit": eager if compiles >= limit else 0,
            "errors": sorted({c["error"] for c in calls if c["error"]}),
            "all_correct": all(c["correct"] for c in calls if not c["error"]), "calls": calls}
