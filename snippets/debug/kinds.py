"""The debugging page's results kind, declared once: the minifier's run on a planted fault."""

from __future__ import annotations

from snippets.core.results import NUM, Kind, declare

MINIFIER = declare(Kind("debug-minifier", "snippets.debug-minifier/1", {
    "error": (str,), "detect_s": NUM, "minify_s": NUM, "nodes_before": (int, type(None)),
    "nodes_after": (int, type(None)), "queries": (int, type(None)), "repro_forward": (str,)}))
