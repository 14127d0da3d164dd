"""The model zoo's results kind, declared once."""

from __future__ import annotations

from snippets.bench.kinds import ROW
from snippets.core.results import Kind, declare

# Benchmark rows over the catalog's models (snippets.zoo): the benchmark's row, its family,
# library and input in the settings.
ZOO = declare(Kind("zoo", "snippets.zoo/1", ROW, variant="mode", timing="latency_ms"))
