"""What the recorded minifier run found, as data: how far it shrank the graph and whether what
is left is the operation the bug was planted in."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class Culprit(str, enum.Enum):
    """Whether the minified graph kept the operation the demo planted its bug in (the ReLU)."""

    FOUND = "found"
    MISSED = "missed"


@dataclass(frozen=True)
class Minified:
    """The minifier's run: whether the compile found a mismatch, the graph's nodes before and
    after minifying, the trial compiles it took, and whether the planted bug is what is left."""

    mismatch: bool
    nodes_before: int
    nodes_after: int
    queries: int
    culprit: Culprit


def minified(doc: dict[str, Any]) -> Minified:
    """The findings of one ``debug-minifier`` document (its one row)."""
    row = doc["rows"][0]
    # The demo plants its bug in the ReLU (wrong_answer.py); the repro's forward names the
    # operations left, as ``torch.ops.aten.relu``.
    kept = "relu" in row["repro_forward"]
    return Minified(bool(row["error"]), row["nodes_before"], row["nodes_after"], row["queries"],
                    Culprit.FOUND if kept else Culprit.MISSED)
