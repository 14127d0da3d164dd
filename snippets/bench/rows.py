"""One benchmark row, as every producer of the ``bench`` kind starts it (the benchmark, the speed
ladder, the settings grid, the freezing check). Apart from ``snippets.bench`` so that those build
the same rows without importing the package that runs them."""

from __future__ import annotations

from typing import Any


def new_row(model: str, bs: int, mode: str, **fields: Any) -> dict[str, Any]:
    row = {"model": model, "batch_size": bs, "mode": mode, "status": "ok", "message": "",
           "compile_s": None, "latency_ms": None, "speedup": None, "speedup_iqr": None,
           "rel_err": None, "peak_mem_mb": None, "flops": None, "tflops": None,
           "pct_of_peak": None, "graph_count": None, "graph_breaks": None, "calls_per_sample": None,
           "cpu_steal_pct": None, "sm_clock_mhz": None, "rounds_discarded": None,
           "host_canary_us": None}
    row.update(fields)
    return row
