"""The generation page's results kinds, declared once."""

from __future__ import annotations

from snippets.core.results import NUM, Kind, declare

# A decoder's prefill and decode per batch size and variant, read against the run's measured
# ceilings, with its greedy tokens compared to eager's.
GENERATE = declare(Kind("generate", "snippets.generate/1", {
    "phase": (str,), "batch_size": (int,), "variant": (str,), "status": (str,), "message": (str,),
    "compile_s": NUM, "latency_ms": (dict, type(None)), "kv_cache_mb": NUM},
    variant="variant", timing="latency_ms"))
# transformers' generate and the package's decoder of the same shape, per decoded token.
HF = declare(Kind("generate-hf", "snippets.generate-hf/1", {
    "variant": (str,), "status": (str,), "message": (str,), "first_s": NUM,
    "latency_ms": (dict, type(None))}, variant="variant", timing="latency_ms"))
# The decode ladder: a rung per row, each step timed at one position and read against the copy
# bandwidth in the document's ``ceilings``; greedy tokens against eager's.
LADDER = declare(Kind("generate-ladder", "snippets.generate-ladder/1", {
    "model": (str,), "batch_size": (int,), "rung": (str,), "status": (str,), "message": (str,),
    "compile_s": NUM, "step_ms": (dict, type(None)), "tokens_per_s": NUM, "bytes_per_step": NUM,
    "gbps": NUM, "of_copy_bw": NUM, "speedup": NUM, "speedup_prev": NUM, "tokens": (list,),
    "first_diff": (int, type(None)), "logit_gap": NUM, "recipe": (dict,)},
    variant="rung", timing="step_ms"))
# N tokens end to end (the gpt-fast loop, a naive one) beside the step alone, per weights (bf16,
# the package's int8 layer, torchao's int8): a row per weights and way, each read per step
# against the copy bandwidth in the document's ``ceilings``; a weights that could not be made is
# one row, way "all", that says why.
LOOP = declare(Kind("generate-loop", "snippets.generate-loop/1", {
    "model": (str,), "batch_size": (int,), "weights": (str,), "way": (str,), "status": (str,),
    "message": (str,), "compile_s": NUM, "compiles": (int, type(None)),
    "latency_ms": (dict, type(None)), "tokens_per_s": NUM, "bytes_per_step": NUM, "gbps": NUM,
    "of_copy_bw": NUM, "speedup": NUM, "tokens": (list,), "first_diff": (int, type(None))},
    variant="way", timing="latency_ms"))
# The traps of a decode loop beside their fixes: compile counts and times.
TRAPS = declare(Kind("generate-traps", "snippets.generate-traps/1", {
    "model": (str,), "trap": (str,), "variant": (str,), "status": (str,), "message": (str,),
    "compiles": (int, type(None)), "recompiles": (int, type(None)), "compile_s": NUM,
    "compiled_at": (list,), "step_ms": (dict, type(None)), "speedup": NUM,
    "tokens_match": (bool, type(None))}, variant="variant", timing="step_ms"))
