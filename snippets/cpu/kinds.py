"""The CPU page's results kind, declared once: eager, torch.compile's recipes, ONNX Runtime and
OpenVINO, a process each, with the precision each ran at, its first answer, its error against
eager fp32 and its profile."""

from __future__ import annotations

from snippets.core.results import NUM, Kind, declare

CPU = declare(Kind("cpu", "snippets.cpu/1", {
    "model": (str,), "batch_size": (int,), "variant": (str,), "runtime": (str,),
    "precision": (str, type(None)), "status": (str,), "message": (str,), "ready_s": NUM,
    "first_s": NUM, "latency_ms": (dict, type(None)), "rel_err": NUM,
    "profile": (dict, type(None))}, variant="variant", timing="latency_ms"))
