"""Scale: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets.core.topic import Findings, Topic
from snippets.scale import findings, kinds, tables

TOPIC = Topic("scale", (kinds.SCALE,), findings={
    "scale": Findings(findings.of, ("scale",)),
    # The scale page also reads the training run's one-GPU steps.
    "scale-one-gpu": Findings(findings.one_gpu, ("train",)),
}, tables={kinds.SCALE.name: tables.table})
