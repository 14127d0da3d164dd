"""What a ``generate-hf`` run says, as data: transformers' static cache, compiled by generate
itself, against its default dynamic cache, both timed in the same rounds. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snippets.core import rows as typed

DYNAMIC, STATIC, COMPILED = "hf dynamic cache", "hf static cache", "hf static cache, compiled"


@dataclass(frozen=True)
class HF:
    """Each transformers variant's speed over the dynamic cache (None where it did not run or
    answered wrongly), and the compiled variant's tokens per second."""

    static: float | None
    compiled: float | None
    compiled_tokens_per_s: float | None


def of(doc: dict[str, Any]) -> HF:
    by = {r["variant"]: r for r in doc["rows"]}

    def speed(name: str) -> float | None:
        r = by.get(name)
        return r.get("speedup") if r and r["status"] in typed.TIMED else None
    fast = by.get(COMPILED)
    return HF(speed(STATIC), speed(COMPILED),
              fast.get("tokens_per_s") if fast and speed(COMPILED) else None)
