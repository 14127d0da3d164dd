"""Made-up result rows for the training tables' tests: only the fields a reading uses."""

from __future__ import annotations


def timed(model, bs, variant, ms, pct=None):
    return {"model": model, "batch_size": bs, "variant": variant, "status": "ok",
            "step_ms": {"median": ms}, "pct_of_peak": pct, "tflops": pct}


def pair(variant, eager_ms, ms, speedup, part=0, canary=400.0):
    return [{**timed("m", 32, "eager", eager_ms), "part": part, "host_canary_us": canary},
            {**timed("m", 32, variant, ms), "part": part, "speedup": speedup,
             "host_canary_us": canary}]

