"""Dynamic shapes: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets import dynamic
from snippets.core.topic import Findings, Producer, Topic
from snippets.dynamic import findings, kinds, producer, tables

TOPIC = Topic("dynamic", (kinds.SHAPES, kinds.COUNTS), producers={
    dynamic.KIND: Producer(("cuda", "cpu"), producer.produce_on),
}, findings={
    "dynamic-steady": Findings(findings.steady, (dynamic.KIND,)),
    "dynamic-steady-large": Findings(findings.steady, ("dynamic-shapes-large",)),
}, tables={dynamic.KIND: lambda d: tables.stalls(d) + "\n\n" + tables.steady(d)})
