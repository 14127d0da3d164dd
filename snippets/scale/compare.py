"""A scale run beside a recorded one (``--compare``): each configuration's step in both."""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.scale.gather import key
from snippets.scale.tables import label, layout, median

COMPARED = ("dtype", "batch_size", "steps", "rounds", "backend", "devices")


def compare(doc: dict[str, Any], recorded: dict[str, Any]) -> str:
    """Each configuration's step in both runs, then the settings that differ."""
    theirs = {key(r): r for r in recorded["rows"]}
    body = []
    for r in doc["rows"]:
        other = theirs.get(key(r))
        if other is None:
            continue
        a, b = median(r), median(other)
        body.append([f"{label(r, 'model', 'strategy', 'variant')} · {layout(r)}",
                     render.ms(a), render.ms(b), f"{b / a:.2f}x" if a and b else "–"])
    mine, other = doc["provenance"], recorded["provenance"]
    differ = [[k, repr(mine["settings"].get(k)), repr(other["settings"].get(k))]
              for k in COMPARED if mine["settings"].get(k) != other["settings"].get(k)]
    if mine.get("device") != other.get("device"):
        differ.insert(0, ["device", str(mine.get("device")), str(other.get("device"))])
    head = ("Configuration", "Step ms here", "Step ms recorded", "Recorded / here")
    text = render.markdown_table(head, body)
    if differ:
        text += "\n\n" + render.markdown_table(("Setting", "Here", "Recorded"), differ,
                                               align="lll")
    return text
