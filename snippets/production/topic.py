"""Production: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets.core.topic import Findings, Topic
from snippets.production import findings, kinds, serving_findings, tables

TOPIC = Topic("production", (kinds.STARTUP, kinds.STREAM, kinds.MODES, kinds.REGIONS,
                             kinds.HAZARDS), findings={
    "production-startup": Findings(findings.startup, ("production-startup",)),
    "production-stream": Findings(serving_findings.stream, ("production-stream",)),
    "production-stream-large": Findings(serving_findings.stream, ("production-stream-large",)),
    "production-stream-large-graphs": Findings(serving_findings.stream,
                                               ("production-stream-large-reduce-overhead",)),
    "production-modes": Findings(serving_findings.modes, ("production-modes",)),
    "production-hazards": Findings(serving_findings.hazards, ("production-hazards",)),
}, tables={k.name: tables.report for k in (kinds.STARTUP, kinds.STREAM, kinds.MODES,
                                           kinds.HAZARDS, kinds.REGIONS)})
