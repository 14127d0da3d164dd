"""The benchmark's results kinds: what each row of its files holds, declared once."""

from __future__ import annotations

from snippets.core.results import NUM, Kind, declare

# A benchmark row: one model, batch size and mode, timed against eager in interleaved rounds.
ROW = {
    "model": (str,), "batch_size": (int,), "mode": (str,), "status": (str,), "message": (str,),
    "compile_s": NUM, "latency_ms": (dict, type(None)), "speedup": NUM, "rel_err": NUM,
    "peak_mem_mb": NUM, "flops": NUM, "tflops": NUM, "graph_count": (int, type(None)),
    "graph_breaks": (int, type(None)),
}

BENCH = declare(Kind("bench", "snippets.bench/1", ROW, variant="mode", timing="latency_ms"))
# One configuration timed alone in a process of its own, by CUDA events around back-to-back
# calls (bench.independent): the benchmark's harness held to a timer that shares nothing with it
# but the model and the settings.
INDEPENDENT = declare(Kind("bench-independent", "snippets.bench-independent/1", {
    "model": (str,), "batch_size": (int,), "mode": (str,), "status": (str,), "message": (str,),
    "latency_ms": (dict, type(None)), "calls_per_sample": (int,)},
    variant="mode", timing="latency_ms"))
