"""The dynamic-shapes page's results kinds, declared once."""

from __future__ import annotations

from snippets.core.results import NUM, Kind, declare

SHAPES = declare(Kind("dynamic-shapes", "snippets.dynamic/1", {
    "strategy": (str,), "compiles": (int,), "compiled_at": (list,), "stall_total_ms": NUM,
    "stall_max_ms": NUM, "eager_after_limit": (int,), "errors": (list,), "all_correct": (bool,),
    "calls": (list,)}, variant="strategy"))
# Recorded on any CPU in seconds, by the produce step: compile counts, nothing timed.
COUNTS = declare(Kind("dynamic-counts", "snippets.dynamic-counts/1", {
    "strategy": (str,), "compiles": (int,), "compiled_at": (list,), "eager_after_limit": (int,)},
    variant="strategy", measured=False))
