"""The training page's results kind, declared once."""

from __future__ import annotations

from snippets.core.results import NUM, Kind, declare

TRAIN = declare(Kind("train", "snippets.train/1", {
    "model": (str,), "batch_size": (int,), "variant": (str,), "status": (str,), "message": (str,),
    "compile_s": NUM, "first_steps_s": (list,), "step_ms": (dict, type(None)), "speedup": NUM,
    "samples_per_s": NUM, "flops": NUM, "tflops": NUM, "peak_mem_mb": NUM,
    "graph_count": (int, type(None)), "graph_breaks": (int, type(None)),
    "break_reasons": (list,), "losses": (list,), "loss_gap": NUM},
    variant="variant", timing="step_ms"))
