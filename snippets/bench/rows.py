"""One benchmark row and the steps every producer of rows shares: counting FLOPs, a fault as a
row, peak memory. Apart from ``snippets.bench`` so that the ladder builds the same rows without
importing the package that runs it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from snippets.core import measure


def count_flops(model: nn.Module, x: torch.Tensor) -> int:
    """FLOPs of one forward. The eval-mode transformer's fused fast path hides its matmuls from
    the counter, so it is switched off while counting."""
    from torch.utils.flop_counter import FlopCounterMode

    fastpath = getattr(torch.backends, "mha", None)
    was = fastpath.get_fastpath_enabled() if fastpath else None
    try:
        if fastpath:
            fastpath.set_fastpath_enabled(False)
        with FlopCounterMode(display=False) as counter:
            model(x)
        return int(counter.get_total_flops())
    finally:
        if fastpath:
            fastpath.set_fastpath_enabled(was)


def _row(model: str, bs: int, mode: str, **fields: Any) -> dict[str, Any]:
    row = {"model": model, "batch_size": bs, "mode": mode, "status": "ok", "message": "",
           "compile_s": None, "latency_ms": None, "speedup": None, "speedup_iqr": None,
           "rel_err": None, "peak_mem_mb": None, "flops": None, "tflops": None,
           "pct_of_peak": None, "graph_count": None, "graph_breaks": None, "calls_per_sample": None,
           "cpu_steal_pct": None, "sm_clock_mhz": None, "rounds_discarded": None,
           "host_canary_us": None}
    row.update(fields)
    return row


def _fault(exc: BaseException) -> tuple[str, str]:
    """(status, one-line message) for an exception raised by one configuration."""
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    if isinstance(exc, torch.cuda.OutOfMemoryError) or "out of memory" in first.lower():
        return "oom", first
    return "error", f"{type(exc).__name__}: {first}"


def _or_none(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception:
        return None


def _peak_mem_mb(fn: Callable[[], object], device: torch.device, weights: int) -> float | None:
    """Weights plus what one steady-state call allocates at its peak."""
    return measure.peak_memory_mb(fn, device, weights)
