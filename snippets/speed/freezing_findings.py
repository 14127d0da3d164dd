"""What a freezing check says, as data: what a replay copies without freezing, and which way of
asking had oneDNN prepack the convolutions."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Frozen:
    """One model and batch: what a replay copies without freezing, beside input and weights."""

    model: str
    batch: int
    fastpath: bool
    copied: int | None
    copied_mib: float | None
    input_mib: float | None
    weights_mib: float | None


def _copy(r: dict[str, Any] | None) -> tuple[int | None, float | None]:
    c = (r or {}).get("replay_copy")
    return (round(c["tensors"]), c["mb"]) if c else (None, None)


def freezing(doc: dict[str, Any]) -> tuple[Frozen, ...]:
    """The freezing check per model and batch size."""
    out = []
    for model, bs in dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]):
        rows = {r.get("point"): r for r in doc["rows"]
                if (r["model"], r["batch_size"]) == (model, bs)}
        first = next(iter(rows.values()))
        copied = _copy(rows.get("off"))
        out.append(Frozen(model, bs, first.get("fastpath", True), *copied,
                          first.get("input_mb"), first.get("weights_mb")))
    return tuple(out)


@dataclass(frozen=True)
class Check:
    """What the page reads from one freezing check."""

    freezing: tuple[Frozen, ...]
    fastpath_off: bool  # some model ran with the encoder's fast path off, as the ladder's rung


def of_freezing(doc: dict[str, Any]) -> Check:
    found = freezing(doc)
    return Check(found, any(not f.fastpath for f in found))


class Prepacked(str, enum.Enum):
    """Which ways of asking for freezing (``freezing.compared``) had oneDNN prepack."""

    SWITCH_ONLY = "switch-only"
    BOTH = "both"
    NEITHER = "neither"
    NO_ONEDNN = "no-onednn"


def prepacked(value: list[dict[str, Any]]) -> Prepacked:
    if not value:
        return Prepacked.NO_ONEDNN
    way = {v["way"]: v["prepacked"] for v in value}
    if way["switch"]:
        return Prepacked.BOTH if way["option"] else Prepacked.SWITCH_ONLY
    return Prepacked.NEITHER
