"""The speed ladder: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets.core.topic import Findings, Topic
from snippets.speed import findings, freezing_findings, graphs, kinds, tables

TOPIC = Topic("speed", (kinds.SETTINGS, kinds.FREEZING), findings={
    "speed": Findings(findings.of, ("bench-ladder",)),
    "speed-graphs": Findings(graphs.of, ("bench-ladder",)),
    "speed-freezing": Findings(freezing_findings.of_freezing, ("speed-freezing",)),
}, tables={kinds.SETTINGS.name: tables.settings_report,
           kinds.FREEZING.name: tables.freezing_report})
