"""Debugging: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets.core.topic import Findings, Producer, Topic
from snippets.debug import findings, kinds, minifier, tables

TOPIC = Topic("debug", (kinds.MINIFIER,), producers={
    # The minifier's injected bug is in Inductor's C++ backend: a CPU run only.
    minifier.KIND: Producer(("cpu",), lambda device: minifier.produce),
}, findings={"debug-minifier": Findings(findings.minified, (minifier.KIND,))},
              tables={minifier.KIND: tables.minifier})
