"""The CPU comparison: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets.core.topic import Findings, Topic
from snippets.cpu import findings, kinds, tables

TOPIC = Topic("cpu", (kinds.CPU,), findings={"cpu": Findings(findings.of, ("cpu",))},
              tables={kinds.CPU.name: tables.table})
