"""Diagnosing a model: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets import diagnose
from snippets.core.topic import Findings, Topic
from snippets.diagnose import kinds, report

TOPIC = Topic("diagnose", (kinds.DIAGNOSE,), findings={
    # The precision a recorded diagnosis of the transformer ran at: its page's words depend on it.
    "diagnose-transformer": Findings(diagnose.ran_at, ("diagnose-transformer",)),
}, tables={kinds.DIAGNOSE.name: report.summary})
