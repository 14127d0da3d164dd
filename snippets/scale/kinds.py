"""Compile at scale's results kind, declared once: one row per distributed configuration, its
ranks' records inside."""

from __future__ import annotations

from snippets.core.results import NUM, Kind, declare

SCALE = declare(Kind("scale", "snippets.scale/1", {
    "model": (str,), "strategy": (str,), "variant": (str,), "nodes": (int,),
    "nproc_per_node": (int,), "world_size": (int,), "batch_size": (int,), "global_batch": (int,),
    "bucket_cap_mb": NUM, "status": (str,), "message": (str,), "compile_s": NUM,
    "step_ms": (dict, type(None)), "samples_per_s": NUM, "graph_count": (int, type(None)),
    "compiled_graphs": (int, type(None)), "graph_breaks": (int, type(None)), "peak_mem_mb": NUM,
    "losses": (list,), "scaling_efficiency": NUM, "loss_gap": NUM, "ranks": (list,)},
    variant="variant", timing="step_ms"))
