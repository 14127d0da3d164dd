"""A diagnosis's results kind, declared once: a row per phase (graph breaks, recompiles, modes)
with what it found or why it was skipped, and the verdict beside."""

from __future__ import annotations

from snippets.core.results import NUM, Kind, declare

DIAGNOSE = declare(Kind("diagnose", "snippets.diagnose/1", {
    "phase": (str,), "outcome": (str,), "message": (str,), "seconds": NUM, "skipped": (list,)},
    variant="phase"))
