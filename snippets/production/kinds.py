"""Putting it in production's results kinds, declared once: fresh-process start-up paths, a
request stream, the compile modes with an empty and a warm cache, regions, and the CUDA-graph
hazards."""

from __future__ import annotations

from snippets.core.results import NUM, Kind, declare

STARTUP = declare(Kind("production-startup", "snippets.production-startup/1", {
    "model": (str,), "path": (str,), "rep": (int,), "status": (str,), "message": (str,),
    "first_s": NUM, "steady_s": NUM, "build_s": NUM, "latency_ms": (dict, type(None))},
    variant="path", timing="latency_ms"))
STREAM = declare(Kind("production-stream", "snippets.production-stream/1", {
    "strategy": (str,), "status": (str,), "message": (str,), "requests": (int,),
    "compiles": (int, type(None)), "warmup_s": NUM, "p50_ms": NUM, "p99_ms": NUM, "max_ms": NUM},
    variant="strategy"))
MODES = declare(Kind("production-modes", "snippets.production-modes/1", {
    "model": (str,), "batch_size": (int,), "mode": (str,), "status": (str,), "message": (str,),
    "compile_empty_s": NUM, "compile_warm_s": NUM, "latency_ms": (dict, type(None)),
    "speedup": NUM}, variant="mode", timing="latency_ms"))
# nested_compile_region at start-up: a stack's first call, marked and not, a process each.
REGIONS = declare(Kind("production-regions", "snippets.production-regions/1", {
    "variant": (str,), "blocks": (int,), "rep": (int,), "status": (str,), "message": (str,),
    "compile_s": NUM}, variant="variant"))
HAZARDS = declare(Kind("production-hazards", "snippets.production-hazards/1", {
    "hazard": (str,), "variant": (str,), "outcome": (str,), "message": (str,)},
    variant="variant"))
