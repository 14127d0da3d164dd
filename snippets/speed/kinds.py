"""The speed page's results kinds, declared once: benchmark rows, each with where it stands."""

from __future__ import annotations

from snippets.bench import kinds as bench
from snippets.core.results import Kind, declare

# The backend settings grid per mode: benchmark rows, each with its ``backends`` and ``point``
# (a row of a model that failed as a whole has neither).
SETTINGS = declare(Kind("speed-settings", "snippets.speed-settings/1", bench.ROW,
                        variant="mode", timing="latency_ms"))
# Freezing asked for three ways (none, the option alone, option and switch): benchmark rows,
# each with its ``point``, and on a GPU ``replay_copy``.
FREEZING = declare(Kind("speed-freezing", "snippets.speed-freezing/1", bench.ROW,
                        variant="mode", timing="latency_ms"))
